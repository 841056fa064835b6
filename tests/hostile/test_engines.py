"""Engines that misbehave, each run through the bridge's command line (in
this process, or in one of its own where a signal is sent to it): the exit
code, one line of error, no traceback, and no process of the engine's group
(nor any carrying the test's mark) left behind (issue 25)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario
from tests.hostile.processes import PY, Hostile, Run, engine

MESSAGES = [{"event": "message", "kind": "user", "size": 100}] * 6


def scenario_file(folder: Path, name: str = "six.jsonl") -> str:
    """Six messages over NODE, each needing a call (constants of tests/bridge/helpers.py)."""
    path = folder / "scenarios" / name
    scenario_format.write(replace(random_scenario(6, 10), events=MESSAGES), path)
    return str(path)


def faulted(run: Run, said: str) -> None:
    """An engine fault: exit 2, one line of the bridge's saying `said`, no traceback."""
    assert run.code == 2, (run.out, run.err)
    assert "Traceback" not in run.out + run.err
    lines = run.error_lines()
    assert len(lines) == 1 and lines[0].startswith("ENGINE FAULT"), run.err
    assert said in lines[0], lines[0]


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(lambda: engine("hang", 2), id="hangs"),
        pytest.param(lambda: f"sh -c '{engine('hang', 2)}; echo done'", id="sh -c wrapper hangs"),
        pytest.param(
            lambda: f"sh -c 'sh -c \"{engine('hang', 2)}; true\"; true'", id="two wrappers hang"
        ),
    ],
)
def test_a_hung_engine_and_its_wrappers_are_ended(run: Hostile, command) -> None:  # type: ignore[no-untyped-def]
    result = run.main("compare", scenario_file(run.folder), "--engine", command(), "--timeout", "1")
    faulted(result, "gave no answer within 1 s at event 2")
    assert not run.left_after(), "a process of the engine outlived the bridge"


def test_an_engine_that_exits_while_its_child_holds_its_stdout(run: Hostile) -> None:
    """Not a wait for the 60 s the header may take, and the child is ended too."""
    result = run.main("compare", scenario_file(run.folder), "--engine", engine("orphan"))
    faulted(result, "exited, a process it started holding its output at the header (exit code 3)")
    assert not run.left_after(), "the engine's child outlived the bridge"


def test_sigterm_ends_a_corpus_run_its_workers_and_their_engines(run: Hostile) -> None:
    scenario_file(run.folder, "a.jsonl")
    scenario_file(run.folder, "b.jsonl")
    process = run.start(
        "corpus", "scenarios", "--engine", engine("hang", 0), "--jobs", "2", "--timeout", "300"
    )
    terminated(run, process, 2)
    assert not run.left_after(), "a pool worker or an engine outlived the run"


def terminated(run: Hostile, process: subprocess.Popen[str], engines: int) -> Run:
    """The run ended by SIGTERM once `engines` engines started and hang:
    exit 2, `interrupted`, no traceback."""
    until = time.monotonic() + 60
    while len(list(run.folder.glob("group-*"))) < engines and time.monotonic() < until:
        time.sleep(0.05)
    assert len(list(run.folder.glob("group-*"))) == engines, f"{engines} engines started"
    time.sleep(0.5)  # each at its hanging event, not only started
    process.send_signal(signal.SIGTERM)
    result = run.finish(process)
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    assert result.error_lines() == ["interrupted"], result.err
    return result


def test_sigterm_ends_a_diagnose_run_and_keeps_its_report(run: Hostile) -> None:
    """Issue 34: the workers and their engines end, and what the run found
    (here: nothing followed yet) is reported and written, exit 2."""
    scenario_file(run.folder, "a.jsonl")
    scenario_file(run.folder, "b.jsonl")
    report = run.folder / "d.json"
    process = run.start(
        "diagnose", "scenarios", "--engine", engine("hang", 0), "--jobs", "2", "--timeout", "300",
        "--json", str(report), "--regressions", str(run.folder / "kept"),
    )  # fmt: skip
    # One engine asked what it declares (an empty chat), then one per worker.
    result = terminated(run, process, 3)
    assert "STOPPED (interrupted) before the end: 2 scenarios not followed" in result.out
    said = json.loads(report.read_text(encoding="utf-8"))
    assert said["stopped"] == "interrupted" and said["unfinished"] == ["a.jsonl", "b.jsonl"]
    assert not run.left_after(), "a pool worker or an engine outlived the run"


def test_endless_output_without_a_newline_is_no_answer_at_the_deadline(run: Hostile) -> None:
    """Each chunk does not reset `--timeout`: it is the deadline of the answer."""
    result = run.main(
        "compare",
        scenario_file(run.folder),
        "--engine",
        engine("dribble"),
        "--timeout",
        "1",
        limit=30,
    )
    faulted(result, "gave no answer within 1 s at event 0")
    assert not run.left_after()


def test_a_line_longer_than_any_answer_is_a_fault(run: Hostile) -> None:
    """The bound of bridge/PROTOCOL.md ends it, long before the deadline."""
    result = run.main(
        "compare",
        scenario_file(run.folder),
        "--engine",
        engine("flood"),
        "--timeout",
        "600",
        limit=30,
    )
    faulted(result, "printed a line longer than any answer")
    assert not run.left_after()


def test_a_fault_while_shrinking_keeps_the_divergence(run: Hostile) -> None:
    found = str(run.folder / "found")
    result = run.main(
        "compare", scenario_file(run.folder), "--engine", engine("flaky", 1),
        "--regressions", found, "--timeout", "5",
    )  # fmt: skip
    assert result.code == 1, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    assert "DIVERGENCE" in result.out and "field 'render'" in result.out
    assert "the shrink stopped at an ENGINE FAULT" in result.out
    (written,) = (run.folder / "found" / "scenarios").glob("*.jsonl")
    assert len(scenario_format.read(written).events) == len(MESSAGES), "the unshrunk scenario"
    assert not run.left_after()


def test_a_fault_while_fuzz_shrinks_keeps_the_divergence(run: Hostile) -> None:
    pytest.importorskip("hypothesis")
    found = str(run.folder / "found")
    result = run.main(
        "fuzz", "--engine", engine("flaky", 2), "--seed", "1", "--histories", "3",
        "--max-events", "5", "--shrink-seconds", "5", "--regressions", found, "--timeout", "5",
    )  # fmt: skip
    assert result.code == 1, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    assert "DIVERGED" in result.out and "the shrink stopped at an ENGINE FAULT" in result.out
    assert list((run.folder / "found" / "scenarios").glob("fuzz-1-*.jsonl")), (
        "the diverging scenario written"
    )
    assert not run.left_after()


@pytest.mark.parametrize("command", ["compare", "replay", "show"])
def test_a_protocol_1_engine_is_told_so_in_one_line(run: Hostile, command: str) -> None:
    """Protocol 1 is retired (bridge/PROTOCOL.md); its malformed views were a traceback."""
    more = ["-o", str(run.folder / "page.html")] if command == "show" else []
    result = run.main(command, scenario_file(run.folder), "--engine", engine("protocol1"), *more)
    faulted(result, 'speaks protocol 1 ({"ready": true}), which this bridge no longer takes')
    assert not run.left_after()


def test_a_wrong_start_under_calls_self_names_the_rule(run: Hostile) -> None:
    result = run.main(
        "compare", scenario_file(run.folder), "--engine", engine("self_start"),
        "--regressions", str(run.folder / "found"), "--shrink-tries", "1",
    )  # fmt: skip
    assert result.code == 1, (result.out, result.err)
    assert "field 'started'" in result.out
    assert "the start of [5, 0] breaks rule node_exists" in result.out, result.out
    assert not run.left_after()


def test_corpus_waits_for_its_session_engine(run: Hostile) -> None:
    """The engine kept from one scenario to the next is ended and waited for
    when the run ends (it was left running, then `<defunct>`)."""
    scenario_file(run.folder, "a.jsonl")
    scenario_file(run.folder, "b.jsonl")
    folder = str(run.folder / "scenarios")
    result = run.main("corpus", folder, "--engine", f"{PY} -m impl.protocol", "--jobs", "1")
    assert result.code == 0, (result.out, result.err)
    assert not run.left(), "the session engine outlived the run"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"rule_names": "no"}, "rule_names"),
        ({"rule_names": 0}, "rule_names"),
        ({"sessions": "true"}, "sessions"),
        ({"sessions": 1}, "sessions"),
        ({"engine": 5}, "engine"),
        ({"engine": None}, "engine"),
        ({"capabilities": None}, "capabilities"),
        ({"profile": None}, "profile"),
    ],
    ids=lambda given: json.dumps(given) if isinstance(given, dict) else "",
)
def test_a_ready_answer_of_fields_of_another_type_is_a_fault(
    run: Hostile, monkeypatch: pytest.MonkeyPatch, fields: dict[str, object], said: str
) -> None:
    """bridge/answer.schema.json's types for the ready answer (issue 36, item 10):
    a `rule_names: "no"` was taken as true, a null `capabilities` as all."""
    monkeypatch.setenv("HOSTILE_TEXT", json.dumps(fields))
    result = run.main("compare", scenario_file(run.folder), "--engine", engine("ready_with"))
    faulted(result, "at the header")
    assert said in result.error_lines()[0], result.err
    assert not run.left_after()


def test_a_divergence_shows_no_difference_in_a_field_not_compared(run: Hostile) -> None:
    """The engine lacks the timed-out render and the compaction view: the
    report and its page say the render differs, and nothing of those
    fields (issue 36, item 12: the timed-out render was drawn as a difference)."""
    found = run.folder / "found"
    result = run.main(
        "compare", scenario_file(run.folder), "--engine", engine("lacking_wrong"),
        "--regressions", str(found), "--shrink-tries", "1",
    )  # fmt: skip
    assert result.code == 1, (result.out, result.err)
    assert "field 'render'" in result.out and "  render:" in result.out
    for said in ("render_timed_out:", "cview ([level", "contexts differ", "not what SPEC"):
        assert said not in result.out, said
    (page,) = found.glob("scenarios/*.html")
    html = page.read_text(encoding="utf-8")
    assert "the chat view" in html and "the compaction view" not in html
    assert "not what SPEC renders" not in html


def test_fuzz_says_nothing_of_agreement_before_it_has_run(run: Hostile) -> None:
    """Its first line names the profile checked under; whether the engine
    agrees is said at the end (issue 36, item 12)."""
    pytest.importorskip("hypothesis")
    result = run.main(
        "fuzz", "--engine", "impl", "--seed", "1", "--histories", "1",
        "--regressions", str(run.folder / "found"),
    )  # fmt: skip
    assert result.code == 0, (result.out, result.err)
    lines = result.out.splitlines()
    assert lines[0] == "fuzzing impl (profile: SPEC) with seed 1, for 1 histories at most"
    assert "impl agrees, and declares no deviation (profile: SPEC)" in lines[-2]
