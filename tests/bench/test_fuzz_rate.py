"""`make bench`'s row for fuzz's throughput: the rate fuzz prints, from a fake run."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

import bench.__main__ as bench


def fake_run(code: int, out: str, seen: list[list[str]]) -> Any:
    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(command)
        return subprocess.CompletedProcess(command, code, out)

    return run


def test_the_row_reads_the_rate_fuzz_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    said = "fuzzing impl\nthroughput: 300 histories, 16,000 events in 9.1 s: 1758 events/s\n"
    monkeypatch.setattr(bench.subprocess, "run", fake_run(0, said, seen))
    row = bench.fuzz_rate()
    assert row.value == "1758 events/s" and row.holds
    assert seen[0][1:9] == [
        "-m",
        "bridge",
        "fuzz",
        "--engine",
        "impl",
        "--seed",
        "1",
        "--histories",
    ]
    assert row.command.startswith("python -m bridge fuzz --engine impl --seed 1")
    monkeypatch.setattr(bench.subprocess, "run", fake_run(2, "ENGINE FAULT\n", seen))
    row = bench.fuzz_rate()
    assert row.value == "exit 2" and not row.holds
