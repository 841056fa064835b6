"""A closed terminal or a dropped ssh session (SIGHUP), and SIGQUIT, end
every long command as Ctrl-C and SIGTERM do (issue 36): sent to the run's
whole process group, as a terminal sends it, while its engines hang, it
leaves no process of the engines' groups (nor any carrying the test's mark),
says `interrupted`, exits 2, and what the run printed before stays printed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import replace

import pytest

from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario
from tests.hostile.processes import Hostile, Run, engine
from tests.hostile.test_engines import scenario_file


def hanging(run: Hostile, count: int) -> None:
    """Wait until `count` engines hang (tests/hostile/engines/hostile.py)."""
    until = time.monotonic() + 60
    while len(list(run.folder.glob("hanging-*"))) < count and time.monotonic() < until:
        time.sleep(0.05)
    assert len(list(run.folder.glob("hanging-*"))) >= count, f"{count} engines hang"


def hung_up(run: Hostile, process: subprocess.Popen[str], sent: int = signal.SIGHUP) -> Run:
    """The run ended by `sent` to its whole process group (the run leads a
    session of its own, as a terminal's foreground job leads its group)."""
    os.killpg(process.pid, sent)
    result = run.finish(process)
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.out + result.err
    assert result.error_lines() == ["interrupted"], result.err
    assert not run.left_after(), "an engine (or a pool worker) outlived the run"
    return result


@pytest.mark.parametrize("sent", [signal.SIGHUP, signal.SIGQUIT], ids=["SIGHUP", "SIGQUIT"])
def test_a_hangup_ends_a_corpus_run_its_workers_and_engines_keeping_its_lines(
    run: Hostile, sent: int
) -> None:
    """Two workers: the largest scenario (three events, long texts) agrees
    first, then both workers hang on a scenario each."""
    quick = run.folder / "scenarios" / "a.jsonl"
    long = [{"event": "message", "kind": "user", "text": "x" * 4000}] * 3
    scenario_format.write(replace(random_scenario(6, 10), events=long), quick)
    scenario_file(run.folder, "b.jsonl")
    scenario_file(run.folder, "c.jsonl")
    process = run.start(
        "corpus", "scenarios", "--engine", engine("hang", 4), "--jobs", "2", "--timeout", "300"
    )
    hanging(run, 2)
    result = hung_up(run, process, sent)
    assert "[1/3] ok   a.jsonl" in result.out, result.out


def test_a_hangup_while_compare_shrinks_keeps_the_divergence_said(run: Hostile) -> None:
    """The first two engines diverge (the replay, then its states); the
    first one shrinking starts hangs."""
    process = run.start(
        "compare", scenario_file(run.folder), "--engine", engine("wrong_then_hang", 2),
        "--regressions", str(run.folder / "found"), "--timeout", "300",
    )  # fmt: skip
    hanging(run, 1)
    result = hung_up(run, process)
    assert "DIVERGENCE" in result.out and "field 'render'" in result.out, result.out
    assert "shrinking (" in result.out, result.out


def test_a_hangup_ends_diagnose_its_workers_and_engines(run: Hostile) -> None:
    scenario_file(run.folder, "a.jsonl")
    scenario_file(run.folder, "b.jsonl")
    """Its JSON report gives no verdict beside exit 2 (issue 42, item 8: it
    said NO LIKELY BUG)."""
    out = run.folder / "diagnosis.json"
    process = run.start(
        "diagnose", "scenarios", "--engine", engine("hang", 2), "--jobs", "2", "--timeout", "300",
        "--json", str(out),
    )  # fmt: skip
    hanging(run, 2)
    result = hung_up(run, process)
    summary = json.loads(out.read_text())["verdict"]["summary"]
    assert summary.startswith("STOPPED (interrupted) before the end, no verdict"), summary
    assert "NO LIKELY BUG" not in summary + result.out, result.out


def test_a_hangup_ends_fuzz_keeping_the_seed_said(run: Hostile) -> None:
    pytest.importorskip("hypothesis")
    process = run.start(
        "fuzz", "--engine", engine("hang", 2), "--seed", "7", "--histories", "50",
        "--regressions", str(run.folder / "found"), "--timeout", "300",
    )  # fmt: skip
    hanging(run, 1)
    result = hung_up(run, process)
    assert "with seed 7" in result.out, result.out
    # Not a finished search's words (issue 42, item 8).
    assert "agrees with" not in result.out and "INTERRUPTED before the search" in result.out


def test_a_run_started_under_nohup_keeps_sighup_ignored(run: Hostile) -> None:
    """`nohup optchat-spec ...`: the user asked for the run to outlive the
    terminal. The hangup comes while the engine holds its answer back; the
    engine then answers and the run ends as it would have."""
    path = scenario_file(run.folder)
    process = run.start("compare", path, "--engine", engine("wait", 2), under=("nohup",))
    hanging(run, 1)
    os.killpg(process.pid, signal.SIGHUP)
    (run.folder / "release").touch()
    result = run.finish(process)
    assert result.code == 0, (result.out, result.err)
    assert "agrees at all" in result.out
    assert not run.left_after()
