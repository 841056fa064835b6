"""`compare`'s shrink (issue 34): it never raises on a text a scenario or an
engine can hold (a lone surrogate in a call's line, `\\r`, NUL), says its
tries and smallest scenario so far at least every 10 s, and on Ctrl-C or
SIGTERM keeps that scenario, written, with the line that says where."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bridge import cli
from bridge.checking import shrink
from bridge.checking.compare import run
from bridge.cli import compare
from bridge.formats.profile import SPEC
from bridge.runs import progress
from bridge.runs.corpus import Options, make_engine
from bridge.wire.stream import from_model
from scenarios import format as scenario_format
from tests.bridge.helpers import bug_in_process

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "tests" / "bridge" / "engines"
SURROGATES = f"{sys.executable} {ENGINES / 'surrogate_lines.py'}"
"""impl.protocol taking a line with a lone surrogate (SPEC 5 refuses it)."""
FREE_LEAF = f"{sys.executable} {ENGINES / 'free_leaf_bug.py'}"

LINE = "line \r with NUL \x00 and a lone \ud800 surrogate"
HEADER = {"format": "optchat-scenario/2", "generator": "test", "seed": 0}
CONSTANTS = {"node": 512, "ceiling": 128000, "floor": 64000, "cceiling": 32000, "cfloor": 16000}
CONSTANTS |= {"jobs": 8, "ahead": 8, "tries": 5, "failures": 3, "retry": 10}
CONSTANTS |= {"settle_timeout": 20, "tool_cap": 30000}


@pytest.fixture(autouse=True)
def engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol engines run as scripts find the project's packages; FREE_LEAF's
    runs in this process (`with_bug`) where the runner does."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    bug_in_process(monkeypatch, FREE_LEAF, "free_leaf_bug")


def written(path: Path, events: list[dict[str, object]]) -> Path:
    lines = [{**HEADER, "constants": CONSTANTS}, *events]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_line_with_a_lone_surrogate_shrinks_through_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine takes the line SPEC 5 refuses: the divergence is at that
    `end`, and every pass of the shrink meets the line (free_leaves asks
    its size) without raising."""
    assert shrink.line_bytes({"event": "end", "node": [0, 0], "line": LINE}) is None
    source = written(
        tmp_path / "surrogate.jsonl",
        [
            {"event": "message", "kind": "user", "text": "a\r\nb\x00c"},
            {"event": "message", "kind": "user", "size": 900},
            {"event": "start", "node": [0, 1]},
            {"event": "message", "kind": "tool", "text": "\r"},
            {"event": "end", "node": [0, 1], "line": LINE, "refused": "utf8"},
            {"event": "message", "kind": "user", "text": "x\x00"},
        ],
    )
    found = tmp_path / "found"
    code = cli.main(
        ["compare", str(source), "--engine", SURROGATES, "--regressions", str(found)]
        + ["--shrink-tries", "200"]
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert 'at event 4 (file line 6): {"event": "end", "node": [0, 1]}' in out
    assert "field 'refused' (rule \"utf8\" of SPEC 4.1)" in out
    (small,) = (found / "scenarios").glob("*.jsonl")
    assert "shrunk to 3 of 6 events, still diverging in the refused (refused) differing" in out
    assert f"at a end event: {small}" in out
    kept = scenario_format.read(small)
    assert kept.events[-1] == {"event": "end", "node": [0, 0], "line": LINE, "refused": "utf8"}
    # What was written diverges so: the model refuses the line, the engine takes it.
    engine = make_engine(Options(SURROGATES))
    try:
        found_again = run(from_model(kept, SPEC, strict=True), engine, engine.start(kept))
    finally:
        engine.close()
    assert found_again.divergence is not None and found_again.divergence.position == 2


def test_the_shrink_says_its_progress_and_an_interruption_keeps_the_smallest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shrink of a diverging corpus scenario, interrupted after 60 tries
    (as Ctrl-C, or SIGTERM, which the runner makes the same interruption):
    progress lines came, each with the tries of the budget and the smallest
    scenario so far, and the smallest one is written and diverges."""
    monkeypatch.setattr(progress, "EVERY", 0.01)
    real = compare.simplify
    tries = 0

    def interrupted(start, still, seconds, budget):  # type: ignore[no-untyped-def]
        def counted(scenario: scenario_format.Scenario) -> bool:
            nonlocal tries
            tries += 1
            if tries > 60:
                raise KeyboardInterrupt
            time.sleep(0.005)  # a progress line's time to come, however fast the engine
            return bool(still(scenario))

        return real(start, counted, seconds, budget)

    monkeypatch.setattr(compare, "simplify", interrupted)
    found = tmp_path / "found"
    code = cli.main(
        ["compare", "refused_built_once_1", "--engine", FREE_LEAF, "--regressions", str(found)]
        + ["--shrink-tries", "500"]
    )
    captured = capsys.readouterr()
    assert code == 2, captured.out
    lines = [line for line in captured.err.splitlines() if line.startswith("  ... shrinking: ")]
    assert lines and all("/500 tries, smallest so far " in line for line in lines), captured.err
    said = [line for line in captured.out.splitlines() if line.startswith("interrupted after")]
    assert len(said) == 1 and said[0].startswith("interrupted after 60 tries: "), captured.out
    (small,) = (found / "scenarios").glob("*.jsonl")
    assert said[0].endswith(f", is kept: {small}")
    kept = scenario_format.read(small)
    events = int(said[0].split("the smallest diverging scenario so far, ")[1].split(" of ")[0])
    assert len(kept.events) == events < 18  # the cut: events up to the divergence
    engine = make_engine(Options(FREE_LEAF))
    try:
        assert run(from_model(kept, SPEC, strict=True), engine, engine.start(kept)).divergence
    finally:
        engine.close()
    assert "interrupted" in captured.err  # and the runner says it, exit 2


def test_sigterm_keeps_the_smallest_scenario_so_far(tmp_path: Path) -> None:
    """The same through a real SIGTERM to a running `compare`."""
    found = tmp_path / "found"
    process = subprocess.Popen(
        [sys.executable, "-m", "bridge", "compare", "refused_built_once_1", "--engine", FREE_LEAF]
        + ["--regressions", str(found)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("shrinking ("):
            break
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 2, out + err
    (small,) = (found / "scenarios").glob("*.jsonl")
    assert f"is kept: {small}" in out and "interrupted" in err
    assert scenario_format.read(small).events


def test_a_shrunk_scenario_is_not_shrunk_again_and_names_never_grow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cause's shrunk scenario, as `corpus` writes it, says what it was
    shrunk from and for: `compare` of it, diverging so still, says so and
    writes nothing. One whose note names another divergence is shrunk
    again, named after the scenario first shrunk, and is then not shrunk
    again either."""
    found = tmp_path / "found"
    code = cli.main(
        ["corpus", "--only", "refused_built_once_1", "--engine", FREE_LEAF, "--jobs", "1"]
        + ["--regressions", str(found), "--shrink-tries", "100"]
    )
    assert code == 1
    (cause,) = (found / "scenarios").glob("cause-*.jsonl")
    note = {"from": "refused_built_once_1.jsonl", "divergence": "views@message"}
    assert scenario_format.read(cause).notes["shrunk"] == note
    capsys.readouterr()

    def compared(path: Path) -> str:
        args = ["--regressions", str(found), "--shrink-tries", "100"]
        code = cli.main(["compare", str(path), "--engine", FREE_LEAF, *args])
        out = capsys.readouterr().out
        assert code == 1, out
        return out

    out = compared(cause)
    assert "already shrunk from refused_built_once_1.jsonl for views@message" in out
    assert "shrinking" not in out and len(list(found.glob("scenarios/*.jsonl"))) == 1

    other = tmp_path / f"{cause.stem}-again.jsonl"
    lines = cause.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["notes"]["shrunk"]["divergence"] = "queue@start"
    other.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    assert "shrinking (" in compared(other)
    (again,) = set(found.glob("scenarios/*.jsonl")) - {cause}
    assert again.name.startswith("refused_built_once_1-")
    assert scenario_format.read(again).notes["shrunk"] == note
    assert "not shrunk again" in compared(again)
    assert len(list(found.glob("scenarios/*.jsonl"))) == 2
