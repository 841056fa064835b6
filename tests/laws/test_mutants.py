"""`python -m laws.mutants`: the three outcomes from what a gate printed and
how it exited, every break still planted in today's sources, gates stopped at
their first catch or at a time-out, gates forked from a server with the
imports done, and one real run of two cheap breaks."""

from __future__ import annotations

import fnmatch
import importlib.util
import py_compile
import time
from pathlib import Path

import pytest

from laws import mutants
from laws.all import all_laws
from laws.forks import Forks
from laws.mutants import CAUGHT, HARNESS, MISSED, Break, Gate, classify

LAWS_HOLD = "law  result\nview_covers  holds\nALL 47 LAWS HOLD (60.0 s, profile ci)\n"
LAWS_BROKEN = (
    "law  result\nrender_bytes  BROKEN\n\nLAW BROKEN: render_bytes\n  says: the render is\n"
    "\nLAW BROKEN: context_render_bytes\n  says: a node's context\n"
    "\n2 of 47 laws BROKEN, 0 lock problems (9.0 s)\n"
)
CORPUS_AGREES = "[1/2] ok   a.jsonl (0.1 s, 0 s in all)\n[2/2] ok   b.jsonl (0.1 s, 0 s in all)\n"


def corpus_with(status: str) -> str:
    return (
        f"[1/2] ok   a.jsonl (0.1 s, 0 s in all)\n[2/2] {status:<4} b.jsonl (0.2 s, 0 s in all)\n"
    )


def test_laws_naming_broken_laws_with_exit_1_catch_the_break() -> None:
    outcome = classify("laws", Gate(1, LAWS_BROKEN))
    assert outcome.verdict == CAUGHT
    assert outcome.by == ("render_bytes", "context_render_bytes")


def test_laws_that_all_hold_miss_the_break() -> None:
    outcome = classify("laws", Gate(0, LAWS_HOLD))
    assert (outcome.verdict, outcome.by) == (MISSED, ())
    assert "ALL 47 LAWS HOLD" in outcome.why


@pytest.mark.parametrize(
    "gate",
    [
        Gate(2, "law  result\n\nHARNESS ERROR: the histories failed outside every law:\n"),
        Gate(1, LAWS_BROKEN + "\nHARNESS ERROR (3.0 s)\n"),
        Gate(2, "laws: no law is named nothing\n"),
        Gate(1, "law  result\n\nLAWS.lock: law x changed\n0 of 47 laws BROKEN, 1 lock problems\n"),
        Gate(0, LAWS_BROKEN),
        Gate(-9, LAWS_BROKEN),
        Gate(None, "", timed_out=True),
    ],
    ids=["harness", "broken-and-harness", "usage", "lock-only", "exit-0-naming", "killed", "time"],
)
def test_a_laws_gate_that_failed_itself_is_a_harness_error(gate: Gate) -> None:
    assert classify("laws", gate).verdict == HARNESS


def test_a_failing_scenario_catches_an_engine_break() -> None:
    assert classify("bridge", Gate(1, corpus_with("FAIL"))) == mutants.Outcome(CAUGHT, ("b.jsonl",))
    stopped = Gate(None, "[1/2] FAIL a.jsonl (0.1 s, 0 s in all)\n", stopped=True)
    assert classify("bridge", stopped) == mutants.Outcome(CAUGHT, ("a.jsonl",))


def test_a_corpus_that_agrees_misses_the_break() -> None:
    assert classify("bridge", Gate(0, CORPUS_AGREES + "ALL 2 SCENARIOS AGREE\n")).verdict == MISSED


@pytest.mark.parametrize("status", ["FAULT", "BAD", "ERROR"])
def test_a_scenario_the_bridge_could_not_check_is_a_harness_error(status: str) -> None:
    outcome = classify("bridge", Gate(2, corpus_with(status)))
    assert outcome.verdict == HARNESS
    assert f"{status} b.jsonl" in outcome.why
    # Even beside a FAIL: the gate did not run whole.
    mixed = corpus_with(status) + "[3/3] FAIL c.jsonl (0.1 s, 0 s in all)\n"
    assert classify("bridge", Gate(2, mixed)).verdict == HARNESS


@pytest.mark.parametrize(
    "gate",
    [Gate(1, CORPUS_AGREES), Gate(0, corpus_with("FAIL")), Gate(None, "", timed_out=True)],
    ids=["exit-1-naming-none", "exit-0-naming", "time"],
)
def test_a_bridge_gate_whose_exit_disagrees_is_a_harness_error(gate: Gate) -> None:
    assert classify("bridge", gate).verdict == HARNESS


PYTEST_FAILED = (
    ".F\n=== short test summary info ===\n"
    "FAILED tests/cli/test_wrong_engines.py::test_x[size] - AssertionError: assert 0 == 1\n"
    "!!! stopping after 1 failures !!!\n"
)


def test_a_failing_test_catches_a_runner_break() -> None:
    outcome = classify("runner", Gate(1, PYTEST_FAILED))
    assert outcome == mutants.Outcome(CAUGHT, ("tests/cli/test_wrong_engines.py::test_x[size]",))


def test_tests_that_pass_miss_a_runner_break() -> None:
    assert classify("runner", Gate(0, "....\n")).verdict == MISSED


@pytest.mark.parametrize(
    "gate",
    [
        Gate(1, "E\nERROR tests/cli/test_wrong_engines.py::test_x - fixture 'capsys'\n"),
        Gate(2, "Interrupted: 1 error during collection\n"),
        Gate(5, "no tests ran\n"),
        Gate(0, PYTEST_FAILED),
        Gate(None, "", timed_out=True),
    ],
    ids=["error", "collection", "no-tests", "exit-0-naming", "time"],
)
def test_a_runner_gate_that_failed_itself_is_a_harness_error(gate: Gate) -> None:
    assert classify("runner", gate).verdict == HARNESS


@pytest.mark.parametrize("mutation", mutants.BREAKS, ids=lambda b: b.name)
def test_every_break_is_planted_in_todays_sources(mutation: Break) -> None:
    text = (mutants.ROOT / mutation.path).read_text(encoding="utf-8")
    for old, new in mutation.edits:
        assert text.count(old) == 1, f"{mutation.path} holds {old!r} {text.count(old)} times"
        assert old != new
    assert mutants.applied(text, mutation) != text


def assert_a_test(test_id: str) -> None:
    """A pytest id `FILE::FUNCTION[PARAMETER]` names a test of the project."""
    path, _, name = test_id.partition("::")
    function, _, parameter = name.partition("[")
    text = (mutants.ROOT / path).read_text(encoding="utf-8")
    assert f"def {function}(" in text, test_id
    assert not parameter or f'("{parameter.rstrip("]")}", ' in text, test_id


def test_what_should_catch_each_break_exists() -> None:
    laws = {law.name for law in all_laws()}
    scenarios = [p.name for p in (mutants.ROOT / "scenarios" / "corpus").glob("*.jsonl")]
    where = {"laws": ("model/",), "bridge": ("impl/",), "runner": ("bridge/", "scenarios/format")}
    for mutation in mutants.BREAKS:
        assert mutation.gate in mutants.GATES
        assert mutation.path.startswith(where[mutation.gate]), mutation.name
        assert mutation.first, mutation.name
        for name in mutation.first:
            if mutation.gate == "laws":
                assert name in laws, f"{mutation.name}: no law {name}"
            elif mutation.gate == "bridge":
                assert fnmatch.filter(scenarios, name), f"{mutation.name}: no scenario {name}"
            else:
                assert_a_test(name)
    for path in mutants.RUNNER_SUITE:
        assert (mutants.ROOT / path).is_file(), path
    assert len({b.name for b in mutants.BREAKS}) == len(mutants.BREAKS)


def test_a_break_whose_text_is_gone_is_a_harness_error_naming_it() -> None:
    gone = Break("a break of code long gone", "model/due.py", (("no such text", "x"),), "laws", ())
    result = mutants.run_break(gone, "ci", first_catch=True, timeout=60)
    assert result.outcome.verdict == HARNESS
    assert "a break of code long gone" in result.outcome.why
    assert "0 times" in result.outcome.why


def test_the_first_fail_stops_the_gate(tmp_path: Path) -> None:
    script = (
        "import time\n"
        "print('[1/3] ok   a.jsonl (0.1 s, 0 s in all)', flush=True)\n"
        "print('[2/3] FAIL b.jsonl (0.1 s, 0 s in all)', flush=True)\n"
        "time.sleep(60)\n"
        "print('[3/3] FAIL c.jsonl (0.1 s, 60 s in all)', flush=True)\n"
    )
    began = time.monotonic()
    gate = mutants.run_process(["-c", script], tmp_path, 30, stop=True)
    assert time.monotonic() - began < 50, "the gate ran on past its first FAIL"
    assert (gate.stopped, gate.timed_out, gate.code) == (True, False, None)
    assert classify("bridge", gate) == mutants.Outcome(CAUGHT, ("b.jsonl",))


def test_a_forked_gate_runs_the_copy_s_modules_and_keeps_its_exit_and_its_stop(
    tmp_path: Path,
) -> None:
    """A gate forked from the server that imported Hypothesis and pytest
    imports the project from its copy (where the break is), exits with its
    own code, and is killed at its first FAIL as a fresh interpreter is."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "__init__.py").write_text("PLANTED = 'in the copy'\n")
    (tmp_path / "gate_a.py").write_text(
        "import sys, model\nprint(model.PLANTED, sys.argv[1:], flush=True)\nsys.exit(3)\n"
    )
    (tmp_path / "gate_b.py").write_text(
        "import time\nprint('[1/2] FAIL b.jsonl (0.1 s, 0 s in all)', flush=True)\ntime.sleep(60)\n"
    )
    forks = Forks()
    try:
        ran = mutants.run_process(["-m", "gate_a", "x"], tmp_path, 30, False, forks)
        began = time.monotonic()
        stopped = mutants.run_process(["-m", "gate_b"], tmp_path, 30, True, forks)
    finally:
        forks.close()
    assert (ran.code, ran.output) == (3, "in the copy ['x']\n")
    assert time.monotonic() - began < 50, "the fork ran on past its first FAIL"
    assert (stopped.stopped, stopped.code) == (True, None)
    assert forks.server.returncode == 0


def test_a_gate_past_its_cpu_budget_is_killed_and_a_harness_error(tmp_path: Path) -> None:
    script = "print('ALL 47 LAWS HOLD', flush=True)\nwhile True:\n    pass\n"
    # A quarter of a CPU second: the loop spends it in a poll or two, not a whole second.
    gate = mutants.run_process(["-c", script], tmp_path, 0.25, stop=False)
    assert gate.timed_out
    assert "mutants: the gate used more than 0.25 CPU seconds" in gate.output
    assert classify("laws", gate).verdict == HARNESS


def test_a_slow_gate_is_not_stopped_by_wall_time(tmp_path: Path) -> None:
    """Waiting (as on a loaded machine) spends no CPU budget: a gate that
    takes four times its budget in wall seconds, using little CPU, ends on
    its own."""
    script = "import time\ntime.sleep(2)\nprint('ALL 47 LAWS HOLD', flush=True)\n"
    gate = mutants.run_process(["-c", script], tmp_path, 0.5, stop=False)
    assert (gate.timed_out, gate.code) == (False, 0)
    assert classify("laws", gate).verdict == MISSED


def test_a_gate_that_uses_no_cpu_for_long_is_hung(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mutants, "STALL", 2.0)
    script = "import time\ntime.sleep(60)\n"
    began = time.monotonic()
    gate = mutants.run_process(["-c", script], tmp_path, 1000, stop=False)
    assert time.monotonic() - began < 50
    assert gate.timed_out and "used no CPU for 2 s: hung" in gate.output


def test_two_cheap_breaks_are_caught_by_what_should_catch_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    wanted = ["render without its last newline", "engine's line chooser"]
    assert mutants.main(["--first-catch", "--jobs", "2", "--only", *wanted]) == 0
    out = capsys.readouterr().out
    lines = {line.split(" (")[0]: line for line in out.splitlines() if line.startswith(CAUGHT)}
    render = lines[f"{CAUGHT:<13} the render without its last newline before </chat>"]
    assert render.endswith("by render_bytes")
    chooser = next(line for name, line in lines.items() if "engine's line chooser" in name)
    assert "by chooser_" in chooser
    assert out.rstrip().splitlines()[-1].startswith("2 of 2 deliberate breaks caught")


def test_a_scratch_copy_keeps_bytecode_but_not_the_broken_module_s(tmp_path: Path) -> None:
    due, view = mutants.ROOT / "model" / "due.py", mutants.ROOT / "model" / "view.py"
    for source in (due, view):
        py_compile.compile(str(source), cfile=importlib.util.cache_from_source(str(source)))
    original = due.read_text()
    compiled = Path(importlib.util.cache_from_source(str(due))).read_bytes()
    copy = mutants.scratch_copy(tmp_path)
    cached = {
        p.name: importlib.util.cache_from_source(str(copy / "model" / p.name)) for p in (due, view)
    }
    assert Path(cached["due.py"]).is_file() and Path(cached["view.py"]).is_file()
    shift = next(b for b in mutants.BREAKS if b.name == "due without the shift (T for T + 1)")
    mutants.apply(copy, shift)
    # The broken module is compiled again from its edited source, the rest reused.
    assert not Path(cached["due.py"]).exists()
    assert Path(cached["view.py"]).is_file()
    # Written in the copy only: the project's module and bytecode are as they were.
    assert (copy / "model" / "due.py").read_text() != due.read_text() == original
    assert Path(importlib.util.cache_from_source(str(due))).read_bytes() == compiled
