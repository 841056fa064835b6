"""What a red run spends, and in what order (issue 40, "red as fast as
green"; bridge/runs/triage.py, bridge/runs/corpus.py): rule slips are tried
on the smallest FAIL waiting while the replay runs; grouping takes a FAIL
as the run kept it instead of replaying it; and shrinks stop at a deadline
set by the replay's time, what they left untried joined to the one cause
of its kind that was shrunk. Speed itself is row 18 of BENCHMARKS.md."""

from __future__ import annotations

import math
import os
import sys
import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import pytest

from bridge.checking import slips
from bridge.checking.causes import Cause, Member, Replays, Signature, group
from bridge.formats.kit import CORPUS
from bridge.formats.profile import SPEC
from bridge.runs import triage
from bridge.runs.corpus import (
    BEHIND,
    Options,
    Workers,
    check,
    kept_member,
    make_engine,
    member,
    untried_joined,
)
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL

ROOT = Path(__file__).resolve().parents[2]
PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'} free_leaf"
VIEWS = Signature("views", "message")


def scenario(events: int) -> Scenario:
    message = {"event": "message", "kind": "user", "text": "x"}
    return Scenario(constants_dict(SMALL), [dict(message) for _ in range(events)])


def failure(name: str, events: int, signature: str = "views@message") -> slips.Failure:
    return slips.Failure(name, scenario(events), SPEC, (), 0, {}, signature)


def test_the_judge_tries_the_smallest_fail_waiting_first_or_the_largest_never_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried: list[str] = []

    class Recording:
        deadline = math.inf
        groups: list[slips.Explained] = []

        def scanning(self, signature: str) -> bool:
            return signature != "zoom@zoom"  # no zoom FAIL is scanned any more

        def __init__(self, wide: bool = True) -> None:
            self.wide = wide
            self.added: list[slips.Failure] = []

        def add(self, failure: slips.Failure) -> None:
            self.added.append(failure)
            tried.append(failure.name)

        def widen(self) -> None:
            assert not self.wide, "the replay's scans were narrow"
            self.wide = True

        def retried(self) -> bool:
            return False

        def explained(self) -> tuple[list[slips.Explained], list[slips.Failure]]:
            return [], []

    monkeypatch.setattr(slips, "Explaining", Recording)
    judge = triage.Judge()
    for name, events in (("big", 40), ("small", 3), ("middle", 12)):
        judge.add(failure(name, events))
    judge.add(failure("small", 3))  # given twice, tried once
    assert judge.idle() and tried == ["small"]
    judge.add(failure("smaller", 1))  # one that came during the replay
    # Of a kind no longer scanned: the largest first, before the smaller ones of it.
    judge.add(failure("zoom_small", 2, "zoom@zoom"))
    judge.add(failure("zoom_large", 50, "zoom@zoom"))
    judge.rest(1.0)
    assert tried == ["small", "smaller", "middle", "big", "zoom_large", "zoom_small"]
    assert not judge.idle() and judge.done == 6


class Unstartable:
    """An engine that must not be started: a past deadline replays nothing."""

    name = "unstartable"
    reused = False

    def start(self, scenario: Scenario) -> object:
        raise AssertionError("started after the deadline")

    def close(self) -> None:
        pass


def test_past_its_deadline_grouping_replays_nothing() -> None:
    probe = Replays(Unstartable(), SPEC, ())  # type: ignore[arg-type]
    probe.deadline = time.monotonic() - 1
    members = [Member(name, VIEWS, scenario(5)) for name in ("a", "b")]
    assert probe.shrunk(scenario(5), VIEWS) == scenario(5)
    (cause,) = group(members, probe)
    assert probe.late and cause.shrunk is None and sorted(cause.scenarios) == ["a", "b"]


def test_the_fails_a_deadline_left_untried_join_the_one_shrunk_cause_of_their_kind() -> None:
    small = scenario(2)
    shrunk = Cause(VIEWS.keeping(small), ["a"], "a", small)
    untried = Cause(VIEWS, ["b", "c"])
    other = Cause(Signature("queue", "start"), ["d"])
    joined = untried_joined([shrunk, untried, other])
    assert [c.scenarios for c in joined] == [["a", "b", "c"], ["d"]]
    # Two causes of that kind shrunk: which one the untried are of is not known.
    twin = Cause(replace(VIEWS, keeps=("message", "start")), ["e"], "e", small)
    untried = Cause(VIEWS, ["b"])
    assert untried in untried_joined([shrunk, twin, untried])


def test_a_fail_the_run_kept_is_the_member_a_replay_makes(tmp_path: Path) -> None:
    """Grouping takes a FAIL as the replay kept it: the same scenario up
    to the divergence and signature as replaying it again would give."""
    options = Options(PLANTED, quiet=True)
    path = CORPUS / "random_07.jsonl"
    verdict = check(path, options)
    assert verdict.status == "FAIL" and verdict.failure is not None
    engine = make_engine(options)
    try:
        replayed, replays = member(path, verdict.divergence["position"], engine, options)
    finally:
        engine.close()
    kept = kept_member(verdict.failure, replayed.signature, replays)
    assert kept == replayed
    assert kept_member(verdict.failure, replayed.signature, None) is None


def slow_square(n: int) -> int:
    time.sleep(0.2)
    return n * n


def test_workers_do_something_else_while_no_result_is_in(tmp_path: Path) -> None:
    """With workers, `idle` is called while they check (what the judge does
    during a replay), for as long as it has something to do; every result
    still comes."""
    files = []
    for n in range(4):
        files.append(tmp_path / f"{n}.txt")
        files[-1].write_text("x" * (n + 1))
    calls: list[int] = []
    got: list[int] = []

    def idle() -> bool:
        calls.append(len(got))
        return len(calls) < 3  # three things to do, then the results are waited for

    with Workers(2) as workers:
        for result in workers.each(slow_square, list(range(4)), lambda n: files[n], idle):
            got.append(result)
    assert sorted(got) == [0, 1, 4, 9]
    # The three were done at once, before any result (each takes a worker 0.2 s).
    assert calls[:3] == [0, 0, 0]
    # With nothing to do it waits: one call at most after each result, not a spin.
    assert len(calls) <= 3 + len(got) + 1


def niceness(_: int) -> int:
    return os.nice(0)


def test_workers_behind_the_judging_process_run_nicer_than_it(tmp_path: Path) -> None:
    """The replay's workers run BEHIND the run's process when it judges
    while it waits for them (and the engines they start with them), so that
    the judging is not left for after the replay; other workers run as
    nice as it."""
    files = [tmp_path / f"{n}.txt" for n in range(2)]
    for path in files:
        path.write_text("x")
    mine = os.nice(0)
    for behind, nicer in ((True, BEHIND), (False, 0)):
        with Workers(2, behind=behind) as workers:
            found = list(workers.each(niceness, [0, 1], lambda n: files[n]))
        assert found == [min(mine + nicer, 19)] * 2
    assert BEHIND > 0


def scans_recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """The scans made from now on (each FAIL's name, and whether wide),
    each finding no slip; every FAIL replayed as the run saw it."""
    calls: list[tuple[str, bool]] = []

    def scan(failure: slips.Failure, deadline: float, wide: bool = True) -> list[slips.Slip]:
        calls.append((failure.name, wide))
        return []

    monkeypatch.setattr(slips, "scan", scan)
    monkeypatch.setattr(slips.Failure, "replayed", lambda self: True)
    return calls


def test_the_replay_scans_only_the_diverging_line_and_the_rest_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the replay goes on, a scan tries only the slips at the
    diverging line (a scan of every line of a large FAIL can take minutes
    on a busy machine, and the run's lines wait for it); a FAIL those leave
    unexplained waits, and is scanned whole once `widen` says the replay is over."""
    calls = scans_recorded(monkeypatch)
    explaining = slips.Explaining(wide=False)
    big = failure("big", 40)
    explaining.add(big)
    assert calls == [("big", False)] and explaining.deferred == [big] and not explaining.alone
    explaining.widen()
    assert calls == [("big", False), ("big", True)]
    assert explaining.alone == [big] and not explaining.deferred
    assert explaining.explained() == ([], [big])


def test_the_replay_scans_the_diverging_line_of_a_few_fails_of_a_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kind of first divergence no slip at the diverging line explains
    is scanned there on `scans` FAILs of it, as the whole scans are, not
    on every one (all the FAILs of a bug no slip names were scanned, most
    of the judging's time): the others wait unscanned for `widen`, then
    are tried on the groups made meanwhile, and none is scanned whole past
    the count."""
    calls = scans_recorded(monkeypatch)
    explaining = slips.Explaining(scans=2, wide=False)
    views = [failure(f"v{n}", 5 + n) for n in range(4)]
    zoom = failure("z", 9, "zoom@zoom")
    for one in [*views, zoom]:
        explaining.add(one)
    assert calls == [("v0", False), ("v1", False), ("z", False)]
    assert explaining.deferred == [*views, zoom] and not explaining.alone
    explaining.widen()
    assert calls[3:] == [("v0", True), ("v1", True), ("z", True)]
    assert explaining.alone == [*views, zoom] and not explaining.deferred


def test_a_large_fail_waits_unscanned_and_meets_the_groups_made_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the replay goes on, a FAIL of more than SCANNED_WHILE_REPLAYING
    events no group explains is not scanned (minutes of model replays);
    it waits, is tried on a group made after it (`retried`, while the
    replay still goes on) and joins it; a FAIL tried on every group made
    is not tried again."""
    slip = slips.Slip("slip:queue.f.lt-le.0", "queue", "f", 1, 1, "a < b", "a <= b", "compare",
                      "", "", None)  # fmt: skip
    scanned: list[str] = []

    def scan(failure: slips.Failure, deadline: float, wide: bool = True) -> list[slips.Slip]:
        scanned.append(failure.name)
        return [slip]

    def explained_by(self: slips.Failure, *tried: slips.Slip) -> bool:
        return self.name != "other" and tried == (slip,)

    monkeypatch.setattr(slips, "scan", scan)
    monkeypatch.setattr(slips.Failure, "replayed", lambda self: True)
    monkeypatch.setattr(slips.Failure, "explained_by", explained_by)
    explaining = slips.Explaining(wide=False)
    large = slips.SCANNED_WHILE_REPLAYING + 1
    big, other = failure("big", large), failure("other", large, "line@fail")
    explaining.add(big)
    explaining.add(other)
    assert explaining.deferred == [big, other] and not scanned
    assert not explaining.retried()  # no group yet to try them on
    explaining.add(failure("small", 3))
    assert scanned == ["small"]
    assert explaining.retried() and explaining.retried() and not explaining.retried()
    (group,) = explaining.groups
    assert [f.name for f in group.failures] == ["small", "big"]
    assert explaining.deferred == [other] and scanned == ["small"]


def test_a_large_fail_judged_again_skips_the_slips_whose_functions_never_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A FAIL of more than SCANNED_WHILE_REPLAYING events, once judged, is
    replayed once under a probe of each function a slip changes: a slip of
    a function the model never ran there (a failure's rule, in a chat of
    messages alone) is judged False without its own replay, one of a
    function it ran is replayed; and the model's code is left as it was."""
    from model import machine

    def slip(function: str) -> slips.Slip:
        code = getattr(machine, function).__code__
        return slips.Slip(f"slip:machine.{function}.x.0", "machine", function, 1, 1, "a", "b",
                          "compare", "", "", code)  # fmt: skip

    failed, message = slip("_failed"), slip("_message")
    monkeypatch.setattr(slips, "catalogue", lambda: (failed, message))
    slips.probes.cache_clear()
    slips.probed.cache_clear()
    right = machine._failed.__code__, machine._message.__code__
    replays: list[tuple[slips.Slip, ...]] = []
    monkeypatch.setattr(slips, "applied", lambda *s, **_: replays.append(s) or nullcontext())
    try:
        big = failure("big", slips.SCANNED_WHILE_REPLAYING + 1)
        big.index = 4
        big.expected = [{}] * 5
        big.answer = {"seen": "other"}
        assert big.calls(failed)  # judged never: no probe yet
        big.judged[(message,)] = False
        assert not big.calls(failed) and big.calls(message)
        assert big.called is not None and ("machine", "_message") in big.called
        assert (machine._failed.__code__, machine._message.__code__) == right
        assert not big.judge(failed) and replays == []
        big.judge(message)
        assert replays == [(message,)]
    finally:
        slips.probes.cache_clear()
        slips.probed.cache_clear()
