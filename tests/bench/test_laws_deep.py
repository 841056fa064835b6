"""`make bench`'s row for the nightly laws run: its verdict, from a fake run."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

import bench.__main__ as bench


def fake_run(code: int, last: str, seen: list[list[str]]) -> Any:
    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(command)
        assert Path(command[command.index("--database") + 1]).is_dir()
        return subprocess.CompletedProcess(command, code, f"seed 1 (again: ...)\n{last}\n")

    return run


def test_the_nightly_row_holds_only_when_every_law_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    monkeypatch.setattr(bench.subprocess, "run", fake_run(0, "ALL 50 LAWS HOLD (641.2 s)", seen))
    row = bench.laws_deep()
    assert row.holds and row.value.endswith(": ALL 50 LAWS HOLD (641.2 s)")
    assert seen[0][1:7] == ["-m", "laws", "--profile", "deep", "--seed", "1"]
    assert row.command == "python -m laws --profile deep --seed 1"
    monkeypatch.setattr(bench.subprocess, "run", fake_run(1, "1 of 50 laws BROKEN", seen))
    row = bench.laws_deep()
    assert not row.holds and row.value.endswith(": 1 of 50 laws BROKEN")
