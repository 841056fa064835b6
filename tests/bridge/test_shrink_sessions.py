"""Shrinking on one engine process (bridge/PROTOCOL.md, `sessions`): an
engine that takes sessions is started once for a whole shrink, each try's
header written after the last try's final detail request; one whose
sessions fail (it exits at the next header) is started afresh for the
try, and the shrink goes on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bridge import cli
from bridge.wire.process import ProcessEngine
from scenarios import format as scenario_format

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "tests" / "bridge" / "engines"
SCENARIO = "refused_built_once_1"
"""A corpus scenario the free-leaf bug fails at its 18th event."""


def compare(
    engine: str, tries: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, Path]:
    """`compare` of SCENARIO: how many engine processes it started, and the
    shrunk scenario it wrote."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    started = 0
    spawn = ProcessEngine._spawn

    def counted(self: ProcessEngine) -> None:
        nonlocal started
        started += 1
        spawn(self)

    monkeypatch.setattr(ProcessEngine, "_spawn", counted)
    found = tmp_path / "found"
    code = cli.main(
        ["compare", SCENARIO, "--engine", f"{sys.executable} {ENGINES / engine}"]
        + ["--regressions", str(found), "--shrink-tries", str(tries)]
    )
    assert code == 1
    (small,) = (found / "scenarios").glob("*.jsonl")
    return started, small


def test_a_shrink_starts_an_engine_taking_sessions_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started, small = compare("planted.py free_leaf", 60, tmp_path, monkeypatch)
    out = capsys.readouterr().out
    # The replay, the states at the divergence, and the shrink's 60 tries.
    assert started == 3, out
    assert len(scenario_format.read(small).events) < 18


def test_a_shrink_starts_an_engine_again_where_its_sessions_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started, small = compare("sessionless.py --once free_leaf", 4, tmp_path, monkeypatch)
    out = capsys.readouterr().out
    assert "ENGINE FAULT" not in out and "shrunk to 18 of 120 events" in out
    # The replay, the states, and one fresh process for each try: the one
    # taken again exits at the header (its fault is not the engine's answer).
    assert started == 2 + 4, out
    assert scenario_format.read(small).notes["events_before"] == 120
