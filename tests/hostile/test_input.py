"""Bad input said in one line naming where it is, exit 2, never a traceback:
constants SPEC 7 refuses (checked by the model itself), a node too high to
name, a timeout that is no positive number, and a reader of stdout that goes
away (issue 25)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario
from tests.hostile.processes import PY, ROOT, Hostile
from tests.hostile.processes import engine as hostile_engine
from tests.hostile.test_engines import scenario_file

REFUSED = [
    ({"node": 0}, "node"),
    ({"node": 3}, "node"),
    ({"floor": 2000, "ceiling": 1000}, "floor <= ceiling"),
    ({"cfloor": 700, "cceiling": 600}, "cfloor <= cceiling"),
    ({"jobs": 0}, "jobs"),
    ({"ahead": 0}, "ahead"),
    ({"tries": 0}, "tries"),
    ({"failures": 0}, "failures"),
]


def scenario_with(folder: Path, constants: dict[str, int], events: list[dict]) -> Path:  # type: ignore[type-arg]
    base = random_scenario(1, 4)
    path = folder / "scenarios" / "bad.jsonl"
    scenario_format.write(
        replace(base, constants={**base.constants, **constants}, events=events), path
    )
    return path


@pytest.mark.parametrize("command", ["compare", "replay", "show", "corpus"])
@pytest.mark.parametrize(("constants", "named"), REFUSED, ids=[str(c) for c, _ in REFUSED])
def test_constants_spec_7_refuses_are_bad_input(
    run: Hostile, command: str, constants: dict[str, int], named: str
) -> None:
    message = [{"event": "message", "kind": "user", "text": "hi"}]
    path = scenario_with(run.folder, constants, message)
    more = {"show": ["-o", str(run.folder / "page.html")], "corpus": ["--jobs", "1"]}
    result = run.main(command, str(path), "--engine", "impl", *more.get(command, []))
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    said = f"{path}:1: constants SPEC 7 refuses: "
    if command == "corpus":
        (line,) = [line for line in result.out.splitlines() if said in line]
        assert "BAD" in result.out
    else:
        (line,) = result.err.splitlines()
    assert said in line and named in line.split(said)[1], line


@pytest.mark.parametrize("engine", ["model", "impl", f"{PY} -m impl.protocol"])
def test_a_start_of_a_node_too_high_to_name_is_refused(run: Hostile, engine: str) -> None:
    """`[100000, 0]` covers 2^100000 messages: its name has too many digits
    to be written, which was a ValueError; it is refused as any node not logged."""
    events = [
        {"event": "message", "kind": "user", "text": "hi"},
        {"event": "start", "node": [100000, 0]},
    ]
    path = scenario_with(run.folder, {}, events)
    result = run.main("replay", str(path), "--engine", engine)
    assert result.code == 0, result.err
    answers = [json.loads(line) for line in result.out.splitlines()]
    assert answers[1]["at"] == 1 and answers[1]["refused"] == "node_exists"


@pytest.mark.parametrize("command", ["compare", "replay", "corpus", "show", "fuzz"])
@pytest.mark.parametrize("timeout", ["nan", "-1", "0", "inf", "-inf", "1e400"])
def test_a_timeout_must_be_a_positive_number(run: Hostile, command: str, timeout: str) -> None:
    path = scenario_with(run.folder, {}, [])
    given = [] if command == "fuzz" else [str(path)]
    output = ["-o", str(run.folder / "x.html")] if command == "show" else []
    result = run.main(command, *given, f"--timeout={timeout}", *output)
    assert result.code == 2
    assert f"argument --timeout: {timeout}: not a positive number" in result.err
    assert "Traceback" not in result.err


def test_replay_into_a_reader_that_stops_is_quiet(tmp_path: Path) -> None:
    """`replay ... | head -1`: no BrokenPipeError, nothing on stderr."""
    events = [{"event": "message", "kind": "user", "size": 1000}] * 400
    path = scenario_with(tmp_path, {}, events)
    process = subprocess.Popen(
        [PY, "-m", "bridge", "replay", str(path), "--engine", "model"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert process.stdout is not None and process.stderr is not None
    assert json.loads(process.stdout.readline())["at"] == 0
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 2
    assert err == "", err


@pytest.mark.parametrize("command", ["corpus", "fuzz", "laws"])
@pytest.mark.parametrize("shard", ["1/1001", "1/100000000", "1/999999999"])
def test_a_campaign_of_more_shards_than_machines_is_refused(
    run: Hostile, command: str, shard: str
) -> None:
    """N at most MAX_SHARDS (scenarios/shard.py): 1/999999999 was a
    MemoryError, 1/100000000 ran 124 s in 806 MB (issue 36, item 3)."""
    more = {"corpus": ["--engine", "impl"], "fuzz": ["--engine", "impl", "--seed", "1"]}
    result = run.main(command, "--shard", shard, *more.get(command, []), limit=30)
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    (line,) = result.err.splitlines()
    assert f"--shard {shard}: N must be from 1 to 1000" in line, line


TOOL_CAPS = [0, 99]
"""Caps SPEC 7 allows (it bounds none) that the engine of impl/ cannot clip
to (its marker needs 100 characters): it says so in its answer to the header."""


@pytest.mark.parametrize("cap", TOOL_CAPS)
@pytest.mark.parametrize("engine", ["impl", f"{PY} -m impl.protocol"])
def test_a_tool_cap_the_engine_cannot_take_is_skipped(
    run: Hostile, monkeypatch: pytest.MonkeyPatch, engine: str, cap: int
) -> None:
    """(issue 36, item 11: a traceback and exit 1 with --engine impl.)"""
    monkeypatch.setenv("HOSTILE_TEXT", json.dumps("a reason"))
    message = [{"event": "message", "kind": "tool", "text": "hello"}]
    path = scenario_with(run.folder, {"tool_cap": cap}, message)
    skipped = run.main("compare", str(path), "--engine", engine)
    assert "Traceback" not in skipped.out + skipped.err
    (said,) = skipped.out.splitlines()
    nothing, line = said.split("; ", 1)
    assert skipped.code == 1 and nothing == "NOTHING COMPARED: 0 of 1 event", said
    assert (
        line.startswith(f"SKIPPED {path}: ")
        and f"tool_cap must leave room for its marker, not {cap}" in line
    )
    same = run.main("compare", scenario_file(run.folder), "--engine", hostile_engine("unsupported"))
    assert skipped.code == same.code, "as any scenario the engine cannot take"
    replayed = run.main("replay", str(path), "--engine", engine)
    assert replayed.code == 0 and replayed.out == "", replayed.err
    assert replayed.err.splitlines() == [line]
    listed = run.main("corpus", str(path), "--engine", engine, "--jobs", "1")
    assert "Traceback" not in listed.out + listed.err and "SKIPPED bad.jsonl" in listed.out


@pytest.mark.parametrize("cap", TOOL_CAPS)
def test_the_model_and_show_take_any_tool_cap(run: Hostile, cap: int) -> None:
    message = [{"event": "message", "kind": "tool", "text": "hello"}]
    path = scenario_with(run.folder, {"tool_cap": cap}, message)
    agreed = run.main("compare", str(path), "--engine", "model")
    assert agreed.code == 0 and "agrees at all 2 answers" in agreed.out, agreed.out + agreed.err
    page = run.folder / "page.html"
    shown = run.main("show", str(path), "-o", str(page))
    assert shown.code == 0 and page.is_file(), shown.err


def test_show_draws_a_start_of_a_node_too_high_to_name(run: Hostile) -> None:
    """(issue 36, item 11: `[100000, 0]` was a traceback in `show`.)"""
    events = [
        {"event": "message", "kind": "user", "text": "hi"},
        {"event": "start", "node": [100000, 0]},
    ]
    path = scenario_with(run.folder, {}, events)
    page = run.folder / "page.html"
    result = run.main("show", str(path), "-o", str(page))
    assert result.code == 0, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    assert "start (100000, 0), refused: node_exists" in page.read_text(encoding="utf-8")
