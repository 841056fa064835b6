"""Constants an engine accepts that no constants meet, or that are beyond
any constant, and a process started with stdout closed (issue 42, item 4):
one line, exit 2, never a traceback; every option file is read up to a
bounded size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bridge.cli as cli
from bridge.formats import limits
from tests.hostile.processes import PY, ROOT, Hostile
from tests.hostile.processes import engine as hostile_engine

CONTRADICT = [
    ({"node": {"min": 1000, "max": 10}}, "NODE at least 1000 and at most 10"),
    ({"node": {"in": [0.5]}}, "NODE in {0.5}"),
    ({"tries": {"in": [0]}}, "TRIES in {0}, and at least 1"),
    ({"floor": {"min": 10}, "ceiling": {"max": 5}}, "at most 5"),
    (
        {
            "node": {"min": {"times": 2, "of": "ceiling"}},
            "ceiling": {"min": {"times": 2, "of": "node"}},
        },
        "at least",
    ),
]
"""Limits no constants meet (with SPEC 7's own bounds: NODE at least 4,
TRIES at least 1, FLOOR at most CEILING), and what the line says."""

HUGE = [
    {"retry": {"in": [1e308]}},
    {"node": {"min": 1e300}},
    {"node": {"max": 10**50}},
    {"ceiling": {"min": {"times": 1e308, "of": "node"}}},
    {"node": {"min": -(10**400)}},
]


@pytest.mark.parametrize(("given", "said"), CONTRADICT, ids=[s for _, s in CONTRADICT])
def test_limits_no_constants_meet_are_said_to_contradict(
    run: Hostile, given: dict[str, object], said: str
) -> None:
    with pytest.raises(limits.LimitsError, match="the limits contradict") as refused:
        limits.parse(given, "where")
    assert said in str(refused.value), refused.value
    path = run.folder / "c.json"
    path.write_text(json.dumps(given))
    for command in (
        ["fuzz", "--histories", "1", "--seed", "1"],
        ["corpus", "--only", "empty_chat"],
    ):
        result = run.main(*command, "--engine", "model", "--constants", str(path))
        assert result.code == 2 and result.out == "", (result.out, result.err)
        (line,) = result.err.splitlines()
        assert "the limits contradict" in line and said in line, line


def test_limits_an_engine_declares_that_contradict_are_its_fault(run: Hostile) -> None:
    os.environ["HOSTILE_TEXT"] = json.dumps({"constants": CONTRADICT[2][0]})
    try:
        result = run.main("fuzz", "--engine", hostile_engine("ready_with"), "--seed", "1")
    finally:
        del os.environ["HOSTILE_TEXT"]
    assert result.code == 2 and "Traceback" not in result.out + result.err
    (line,) = result.error_lines()
    assert line.startswith("ENGINE FAULT") and "the limits contradict" in line, line


@pytest.mark.parametrize("given", HUGE, ids=[json.dumps(h)[:40] for h in HUGE])
def test_a_bound_beyond_any_constant_is_refused_in_one_line(
    run: Hostile, given: dict[str, object]
) -> None:
    path = run.folder / "c.json"
    path.write_text(json.dumps(given))
    result = run.main("fuzz", "--engine", "model", "--constants", str(path), "--seed", "1")
    assert result.code == 2 and "Traceback" not in result.err, (result.out, result.err)
    (line,) = result.err.splitlines()
    assert "is beyond what a constant can be" in line and len(line) < 300, line


def test_limits_that_leave_nothing_fuzz_draws_are_said(run: Hostile) -> None:
    """NODE 1e15 and up meets the limits, but a history's texts run to six
    times NODE: fuzz says so instead of filling memory."""
    path = run.folder / "c.json"
    path.write_text(json.dumps({"node": {"min": 1e15}}))
    result = run.main("fuzz", "--engine", "model", "--constants", str(path), "--seed", "1")
    assert result.code == 2, (result.out, result.err)
    (line,) = result.err.splitlines()
    assert "leave too few to draw histories with" in line, line


@pytest.fixture
def report(run: Hostile) -> Path:
    """A JSON report of a whole corpus run (one tiny scenario)."""
    path = run.folder / "r.json"
    result = run.main("corpus", "--only", "empty_chat", "--engine", "model", "--json", str(path))
    assert result.code == 0, (result.out, result.err)
    return path


def test_every_command_ends_without_a_traceback_when_stdout_is_none(
    run: Hostile, report: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python has no stdout (None) in a process started without one; each
    command runs to its verdict and prints nowhere."""
    folder = run.folder
    for argv, code in [
        (["corpus", "--only", "empty_chat", "--engine", "model"], 0),
        (["diagnose", "--only", "empty_chat", "--engine", "model"], 0),
        (["fuzz", "--engine", "model", "--histories", "1", "--seed", "1"], 0),
        (["matrix", str(report), "-o", str(folder / "m.html")], 0),
        (["merge-reports", str(folder / "all.json"), str(report)], 0),
    ]:
        monkeypatch.setattr(sys, "stdout", None)
        assert cli.main(argv) == code, argv
        monkeypatch.undo()
        err = capsys.readouterr().err
        assert "Traceback" not in err, err
    assert json.loads((folder / "all.json").read_text())["verdict"]["exit_code"] == 0


def test_a_process_started_with_stdout_closed_writes_its_report(report: Path) -> None:
    """`cmd >&-`: descriptor 1 closed; the report is written, nothing else
    takes descriptor 1, no traceback."""
    out = report.with_name("joined.json")
    done = subprocess.run(
        [
            "sh",
            "-c",
            'exec "$@" >&-',
            "sh",
            PY,
            "-m",
            "bridge",
            "merge-reports",
            str(out),
            str(report),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads(out.read_text())["verdict"]["exit_code"] == 0


def test_an_option_file_is_read_up_to_a_bound(run: Hostile) -> None:
    """`--known-causes /dev/zero` read 3.8 GB into memory and failed there."""
    for option in ("--known-causes", "--known-failures", "--constants", "--profile"):
        command = "fuzz" if option == "--known-causes" else "corpus"
        only = [] if command == "fuzz" else ["--only", "empty_chat"]
        result = run.main(command, "--engine", "model", *only, option, "/dev/zero")
        assert result.code == 2, (option, result.out, result.err)
        (line,) = result.err.splitlines()
        assert "/dev/zero" in line and "larger than" in line, line
