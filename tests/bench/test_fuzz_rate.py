"""`make bench`'s rows for fuzz's throughput (now against before issue 24's
rework), a failing engine against a passing one, and the shrunk sizes: each
read from its command's JSON line, from fake runs."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

import bench.__main__ as bench


def fake_run(said: dict[str, Any], seen: list[list[str]]) -> Any:
    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        seen.append(command)
        return subprocess.CompletedProcess(command, 0, f"a table\n{json.dumps(said)}\n")

    return run


def test_the_rate_row_holds_at_three_times_the_rate_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[list[str]] = []
    said = {"before": 900.0, "after": 2900.0, "ratio": 2900 / 900, "commit": "78dbcb9"}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(said, seen))
    row = bench.fuzz_rate()
    assert seen[0][1:] == ["-m", "bench.fuzz", "--rate"]
    assert row.value == "2900 events/s, 3.2x the 900 events/s of 78dbcb9" and row.holds
    slower = {**said, "after": 2000.0, "ratio": 2000 / 900}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(slower, seen))
    assert not bench.fuzz_rate().holds
    unknown = {**said, "before": None, "ratio": None}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(unknown, seen))
    row = bench.fuzz_rate()
    assert row.value == "2900 events/s" and not row.holds


def run(wall: float, fails: int, code: int) -> dict[str, Any]:
    return {"wall": wall, "cpu": 1.0, "exit": code, "fails": fails}


def test_the_failing_row_holds_when_failing_is_no_slower(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    said = {"passing": run(20, 0, 0), "failing": run(12, 40, 1), "failing_report": run(90, 40, 1)}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(said, seen))
    row = bench.failing_engine(quick=False)
    assert seen[0][1:] == ["-m", "bench.failing"]
    assert row.value == "0.60x (12 s, 40 FAIL, vs 20 s; --report 90 s)" and row.holds
    slower = {**said, "failing": run(25, 40, 1)}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(slower, seen))
    assert not bench.failing_engine(quick=True).holds
    assert seen[-1][1:] == ["-m", "bench.failing", "--quick"]
    nothing = {**said, "failing": run(12, 0, 0)}  # it failed nothing: no measure
    monkeypatch.setattr(bench.subprocess, "run", fake_run(nothing, seen))
    assert not bench.failing_engine(quick=False).holds


def test_the_shrunk_row_holds_at_ten_events_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    said = {"sizes": {"a": 8, "b": 10, "c": 3}, "largest": 10}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(said, seen))
    row = bench.shrunk_sizes()
    assert row.value == "8, 10, 3; largest 10" and row.holds
    monkeypatch.setattr(bench.subprocess, "run", fake_run({**said, "largest": 11}, seen))
    assert not bench.shrunk_sizes().holds
    missed = {"sizes": {"a": 8, "b": None}, "largest": None}
    monkeypatch.setattr(bench.subprocess, "run", fake_run(missed, seen))
    row = bench.shrunk_sizes()
    assert row.value == "8, ?; largest None" and not row.holds
