"""The forked second judge end to end (issue 40, "red as fast as green";
bridge/checking/slips.py `Ahead`, bridge/runs/triage.py `Judge.rest`): with
--jobs 2 and eight FAILs or more waiting, `rest` forks a process that
judges them from the other end; what this process finds with it is what it
finds alone (`Judge(jobs=1)`), the judgments the fork sent are taken as
made here (each with what judging leaves: the slip refuted, or where the
engine parts from the slipped model), not made again, and no process is
left once `rest` returns or raises. The FAILs: planted.py's engine (a free
leaf queued, a zoom's halves newest first), in this process, on nine small
scenarios of the corpus; one is tried first, as during a replay, so that
the fork has a group to fit the others to."""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import replace
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest

from bridge.checking import slips
from bridge.formats.profile import SPEC
from bridge.runs import triage
from bridge.runs.corpus import Options, check
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL, in_process, with_bug

ROOT = Path(__file__).resolve().parents[2]
PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'}"
PLANTS = ("queued_leaf", "zoom")
NAMES = [
    "chooser_0",
    "chooser_1",
    "chooser_2",
    "zoom_0",
    "zoom_1",
    "zoom_2",
    "random_01",
    "random_02",
    "random_03",
]
"""Scenarios where the free leaf queued shows first; in some, the zoom's
bug shows past it, where the engine parts from the model with the free
leaf's slip (`Failure.parted`)."""

Judged = dict[str, Any]


def failures(monkeypatch: pytest.MonkeyPatch) -> list[slips.Failure]:
    """The FAILs of the planted engine on `NAMES`, as a run's replay gives them."""
    spec = " ".join([PLANTED, *PLANTS])
    in_process(
        monkeypatch, lambda given: with_bug(given, "planted", *PLANTS) if given == spec else None
    )
    found = []
    for name in NAMES:
        verdict = check(ROOT / "scenarios" / "corpus" / f"{name}.jsonl", Options(engine=spec))
        assert verdict.status == "FAIL" and verdict.failure is not None, (name, verdict.reason)
        found.append(verdict.failure)
    assert len(found) - 1 >= triage.AHEAD_AT_LEAST  # enough wait for `rest` to fork
    return found


def judged(given: list[slips.Failure], jobs: int) -> tuple[Judged, list[slips.Failure]]:
    """What `Judge(jobs)` finds on fresh copies of `given` (one tried
    first, as while a replay goes on, then `rest`): its groups, the FAILs
    left alone, and every FAIL's judgments with what judging left (the
    slips refuted, where the engine parts from a slip's model); the copies."""
    copies = [replace(f) for f in given]
    judge = triage.Judge(jobs)
    for failure in copies:
        judge.add(failure)
    assert judge.idle(quiet=True)
    groups, alone = judge.rest()
    found = {
        "groups": [
            (g.slip.id, [s.id for s in g.slips], [f.name for f in g.failures]) for g in groups
        ],
        "alone": [f.name for f in alone],
        "judged": {f.name: {slips.ids(k): v for k, v in f.judged.items()} for f in copies},
        "refuted": {f.name: sorted(s.id for s in f.refuted) for f in copies},
        "parted": {f.name: {s.id: p for s, p in f.parted.items()} for f in copies},
    }
    return found, copies


def forks(monkeypatch: pytest.MonkeyPatch, drained: bool = False) -> list[int]:
    """The ids of the processes `Ahead.start` forks from now on; `drained`:
    each start returns only once the fork has sent all it will, every
    judgment read (the fork's whole work taken, whatever the timing), and
    those kept in `SENT`."""
    started: list[int] = []
    start = slips.Ahead.start

    def recorded(ahead: slips.Ahead, failures: list[slips.Failure], work: Any) -> None:
        start(ahead, failures, work)
        started.append(ahead.pid)
        if drained:
            while ahead.conn is not None:
                ahead.conn.poll(None)
                ahead.knows(failures[0], ())  # reads what was sent; at its end, the pipe closed
            SENT.update(ahead.told)

    SENT.clear()
    monkeypatch.setattr(slips.Ahead, "start", recorded)
    return started


SENT: dict[tuple[str, tuple[str, ...]], slips.Told] = {}
"""The judgments a drained fork sent, by FAIL and slips' ids."""


def gone(pid: int) -> bool:
    """Whether the process `pid`, a child of this one, has ended and been
    waited for (no process, not even a zombie, left)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_forked_judge_finds_what_one_process_finds_and_is_gone_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With --jobs 2, whatever the fork got to before `rest` ended, the
    groups, the FAILs left alone and every judgment (with the slips
    refuted and where the engine parts) are those of one process alone;
    and the fork is gone once `rest` returned."""
    given = failures(monkeypatch)
    alone, _ = judged(given, 1)
    assert alone["groups"] and any(alone["parted"].values()), alone
    started = forks(monkeypatch)
    with_fork, _ = judged(given, 2)
    assert len(started) == 1, "rest forked no judge"
    assert with_fork == alone
    assert gone(started[0]) and slips.AHEAD == []


def test_the_forks_judgments_are_taken_not_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fork's whole work read before this process judges on: each
    judgment it sent that this process needs is taken as it was sent, with
    the slip it refuted or where the engine parted from the slip's model,
    and never judged here again; what this process finds is what it finds
    alone."""
    given = failures(monkeypatch)
    alone, _ = judged(given, 1)
    forks(monkeypatch, drained=True)
    made: list[tuple[str, tuple[str, ...]]] = []
    judge = slips.Failure.judge

    def counted(failure: slips.Failure, *tried: slips.Slip) -> bool:
        made.append((failure.name, slips.ids(tried)))
        return judge(failure, *tried)

    monkeypatch.setattr(slips.Failure, "judge", counted)
    with_fork, copies = judged(given, 2)
    assert with_fork == alone
    needed = {(f.name, slips.ids(k)) for f in copies for k in f.judged}
    taken = needed & SENT.keys()
    assert not taken & set(made), "a judgment the fork sent was made again"
    assert needed <= taken | set(made)
    # Among those taken: judgments that left a slip refuted, and where the
    # engine parts from a slip's model (each kept on the FAIL as sent).
    refuting = [k for k in taken if SENT[k][1]]
    parting = [k for k in taken if SENT[k][2] is not None]
    assert refuting and parting, (len(taken), len(SENT))
    by_name = {f.name: f for f in copies}
    for name, ids in parting:
        assert by_name[name].parted[slips.named(ids[0])] == SENT[name, ids][2]
    for name, ids in refuting:
        assert slips.named(ids[0]) in by_name[name].refuted


def test_the_fork_is_gone_when_rest_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C in `rest` while the fork judges: it ends, waited for, and
    no FAIL asks it any more."""
    given = failures(monkeypatch)
    started = forks(monkeypatch)
    judge = triage.Judge(2)
    for failure in given:
        judge.add(failure)

    def interrupted(quiet: bool = False) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(judge, "idle", interrupted)
    with pytest.raises(KeyboardInterrupt):
        judge.rest()
    assert len(started) == 1 and gone(started[0]) and slips.AHEAD == []


def stalled(*sent: Any, close: bool = False) -> tuple[slips.Ahead, slips.Failure, Connection]:
    """An `Ahead` whose forked process sent `sent` (then ended, with
    `close`) and nothing more, as one stopped, starved or gone; a FAIL
    whose judgment by the catalogue's first slip it said it is making; and
    the end the process writes to (kept open while it is held)."""
    failure = slips.Failure("f", Scenario(constants_dict(SMALL), []), SPEC, (), 0, {}, "x@y")
    ahead = slips.Ahead()
    reader, writer = Pipe(duplex=False)
    ahead.conn = reader
    for said in sent:
        writer.send(said)
    if close:
        writer.close()
    return ahead, failure, writer


def answered_within(ahead: slips.Ahead, failure: slips.Failure, slip: slips.Slip) -> bool:
    """Whether `took` returned at all (in a thread, given a minute), and false."""
    returned: list[bool] = []
    thread = threading.Thread(target=lambda: returned.append(ahead.took(failure, (slip,))))
    thread.daemon = True
    thread.start()
    thread.join(60)
    return returned == [False]


@pytest.mark.parametrize("how", ["stopped", "past the scan's end", "gone", "garbled"])
def test_a_judgment_the_fork_claimed_and_never_sent_is_left_to_be_made_here(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This process waits for a judgment the forked process said it is
    making, within `WAITING` times what the judgment may take and the
    scan's end: a fork that stops, is gone, or sends what is no judgment
    leaves it to be made here, never a wait without end."""
    slip = slips.catalogue()[0]
    claim = ("claim", "f", (slip.id,))
    monkeypatch.setattr(slips, "WAITING", 0.05)
    if how == "past the scan's end":
        monkeypatch.setattr(slips, "WAITING", 1e9)
        monkeypatch.setattr(slips, "BY", [time.monotonic()])
    sent = (claim, ("told", "f")) if how == "garbled" else (claim,)
    ahead, failure, _writer = stalled(*sent, close=how == "gone")
    assert answered_within(ahead, failure, slip), how
    assert ("f", (slip.id,)) not in ahead.making
    assert (ahead.conn is None) == (how in ("gone", "garbled"))
