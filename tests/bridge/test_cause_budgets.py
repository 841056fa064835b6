"""What each step of a cause's shrink is given (bridge/runs/triage.py):
one deadline and one count of tries for all the steps of a cause's
shrink, the shrinks' time shared among the causes still to come, and the
slips a refuted cause falls back on. Each step is a stand-in that says
what it was given and spends time on a clock of the test's (no timing)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bridge.checking import causes, shrink, slips
from bridge.checking.causes import Cause, Signature, signature_of_json
from bridge.checking.verdict import Verdict
from bridge.formats.profile import SPEC
from bridge.runs import triage
from bridge.runs.corpus import Options
from model.constants import Constants
from scenarios.format import Scenario
from scenarios.strategies import constants_dict

CONSTANTS = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
EVENTS = [{"event": "message", "kind": "user", "text": "hi"}]
SCENARIO = Scenario(constants_dict(CONSTANTS), EVENTS, "test", 0)
QUEUED = slips.named("slip:machine._message.eq-ne.0")
ARGS = triage.Shrinking(10, 5.0, Path("unused"), 1)
"""--shrink-tries 10, --shrink-seconds 5."""


class Clock:
    """`time.monotonic` for triage.py and shrink.py: it moves only when a step spends time."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


Step = Callable[..., Any]


class Engine:
    def close(self) -> None:
        pass


def steps(
    monkeypatch: pytest.MonkeyPatch, parted: Step, simplify: Step
) -> tuple[list[tuple[str, float, int]], list[Scenario]]:
    """triage's clock, `parted` and `simplify` replaced: each call of a step
    recorded (its name, seconds, tries) before the stand-in runs; and the
    scenarios kept as shrunk."""
    clock, given, kept = Clock(), [], []
    for module in (triage, shrink):
        monkeypatch.setattr(module, "time", clock)

    def recorded(name: str, step: Step) -> Step:
        def run(scenario: Scenario, holds: Step, seconds: float, tries: int) -> Any:
            given.append((name, seconds, tries))
            return step(scenario, holds, clock)

        return run

    monkeypatch.setattr(triage, "parted", recorded("parted", parted))
    monkeypatch.setattr(triage, "simplify", recorded("simplify", simplify))
    monkeypatch.setattr(triage, "make_engine", lambda _: Engine())
    monkeypatch.setattr(triage, "kept", lambda cause, small, *_: kept.append(small))
    return given, kept


def spending(seconds: float, tries: int, found: Scenario | None = None) -> Step:
    """A step that spends `seconds` and `tries` (calls of what it is given) and finds `found`."""

    def step(scenario: Scenario, holds: Step, clock: Clock) -> Scenario | None:
        for _ in range(tries):
            holds(scenario)
        clock.now += seconds
        return found

    return step


def test_a_later_bugs_shrink_steps_share_one_deadline_and_one_count_of_tries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cause shown only after a slip's: a constant lowered is looked for
    first, on the FAIL (shrink.py `parted`); where none leaves the first
    bug out, the shrink has what that search left of --shrink-seconds and
    --shrink-tries (it had them whole again), and where one does, no
    shrink follows."""
    small = Scenario(constants_dict(CONSTANTS), EVENTS[:1], "small", 0)
    failure = slips.Failure("two.jsonl", SCENARIO, SPEC, (), 0, {}, expected=[{}])
    cause = Cause(Signature("zoom", "zoom"), [], after=["two.jsonl"])
    monkeypatch.setattr(slips, "differing_answers", lambda *_: [1])  # the slip changes one answer
    monkeypatch.setattr(slips, "against", lambda *_: "found")
    monkeypatch.setattr(causes, "signature", lambda _: cause.signature.provisional())
    for found, ends, expected in (
        (None, math.inf, [("parted", 5.0, 10), ("simplify", 2.0, 6)]),
        (None, 104.0, [("parted", 4.0, 10), ("simplify", 1.0, 6)]),  # the shrinks' end first
        (small, math.inf, [("parted", 5.0, 10)]),
    ):
        given, kept = steps(monkeypatch, spending(3.0, 4, found), spending(1.0, 0, SCENARIO))
        first = {"two.jsonl": QUEUED}
        triage.later_shrunk(cause, {"two.jsonl": failure}, first, Options("impl"), ARGS, ends)
        assert given == expected
        assert [k.generator for k in kept] == [(found or SCENARIO).generator]


def test_a_slips_shrink_on_the_engine_has_what_its_model_shrink_left_of_its_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slip's cause whose shrunk scenario shows another bug of the engine
    after its own: shrunk on, on the engine, a constant lowered first, then
    the shrink, each with what is left of one --shrink-seconds from the
    start and of --shrink-tries, though the shrinks have no end (each had
    no bound, `shrinks_end` being inf under --shrink-seconds)."""
    failure = slips.Failure("one.jsonl", SCENARIO, SPEC, (), 0, {}, expected=[{}])
    monkeypatch.setattr(failure, "explained_by", lambda *_: True)
    monkeypatch.setattr(slips, "shows_first", lambda *_: lambda _: True)
    # The engine agrees with the slipped model up to the slip's bug, not on all of it.
    monkeypatch.setattr(slips, "confirmed", lambda *a, whole=False: not whole)
    given, kept = steps(monkeypatch, spending(1.0, 3), spending(2.0, 0, SCENARIO))
    cause = Cause(Signature("size", "message", slip=QUEUED.id), ["one.jsonl"])
    triage.slip_shrunk(cause, {"one.jsonl": failure}, Options("impl"), ARGS, math.inf)
    model = max(ARGS.shrink_tries, slips.TRIES)  # the model's replays are cheap
    assert given == [("simplify", 5.0, model), ("parted", 3.0, 10), ("simplify", 2.0, 7)]
    assert cause.confirmed and not cause.alone and kept == [SCENARIO]


def test_the_shrinks_time_is_shared_with_the_causes_shrunk_after_the_grouping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beside a bug no slip explains (grouped), two causes of FAILs that
    each show a slip's bug beside their own at one answer, each of another
    part of SPEC (so two causes, shrunk after the grouping): the grouping
    ends at a third of the shrinks' time left, the first of the two at half
    of what is left then, the last at the shrinks' end."""
    clock = Clock()
    monkeypatch.setattr(triage, "time", clock)
    div = {"position": 0, "event": {**EVENTS[0], "at": 0}, "field": "size"}
    alike: dict[Signature, list[Verdict]] = {}
    for name, field, beside in (
        ("own", "render", False),
        ("a", "queue", True),
        ("b", "zoom", True),
    ):
        failure = slips.Failure(f"{name}.jsonl", SCENARIO, SPEC, (), 0, {}, expected=[{}])
        key = signature_of_json({**div, "field": field})
        if beside:
            failure.beside, failure.left = QUEUED, key.id
        verdict = Verdict(Path(failure.name), "FAIL", 0.0, divergence=div, failure=failure)
        alike[key] = [verdict]
    assert len({k.area() for k in alike}) == 3
    named = Cause(Signature("size", "message", slip=QUEUED.id), ["one.jsonl"])
    ends: list[float] = []

    def named_by(cause: Cause, *_: object) -> list[slips.Failure]:
        cause.confirmed, cause.representative = True, "one.jsonl"
        return []

    def grouped(own: dict[Signature, list[Verdict]], *args: Any) -> Any:
        ends.append(args[-1])
        clock.now += 100
        return [
            Cause(k, [str(v.path) for v in vs], representative="x") for k, vs in own.items()
        ], False

    def later_shrunk(cause: Cause, *args: Any) -> None:
        ends.append(args[-1])
        clock.now += 50

    monkeypatch.setattr(triage, "named_by", named_by)
    monkeypatch.setattr(triage, "grouped", grouped)
    monkeypatch.setattr(triage, "later_shrunk", later_shrunk)
    found, _ = triage.shrunk([named], alike, Options("impl"), ARGS, 1100.0)
    assert len(found) == 4
    assert ends == pytest.approx([100 + 1000 / 3, 200 + 900 / 2, 1100.0])


def refuting(monkeypatch: pytest.MonkeyPatch, agrees: str = "") -> list[str]:
    """`slip_shrunk` replaced: the engine refutes every slip but `agrees`;
    the slips tried, in turn."""
    tried: list[str] = []

    def shrunk(cause: Cause, *_: object) -> None:
        tried.append(cause.signature.slip or "")
        cause.confirmed = cause.signature.slip == agrees

    monkeypatch.setattr(triage, "slip_shrunk", shrunk)
    return tried


def test_no_other_slip_is_tried_once_the_shrinks_time_is_spent(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tried = refuting(monkeypatch)
    ids = [slip.id for slip in slips.catalogue()[:3]]
    cause = Cause(Signature("size", "message", slip=ids[0]), ["one.jsonl"], fallbacks=ids[1:])
    args = triage.Shrinking(1, None, Path("unused"), 1)
    assert triage.named_by(cause, {}, Options("impl"), args, -math.inf, [cause]) == []
    assert tried == ids[:1] and not cause.confirmed
    assert capsys.readouterr().out.endswith("its FAILs are grouped as those no slip explains\n")


def test_a_cause_falls_back_only_on_a_slip_that_explains_each_of_its_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refuted slip's FAILs: the next of its other slips is passed over
    where it does not explain one of them."""
    first, apart, after = (slip.id for slip in slips.catalogue()[:3])
    failure = slips.Failure("one.jsonl", SCENARIO, SPEC, (), 0, {}, expected=[{}])
    monkeypatch.setattr(failure, "explained_by", lambda slip: slip.id != apart)
    tried = refuting(monkeypatch, after)
    cause = Cause(Signature("size", "message", slip=first), ["one.jsonl"], fallbacks=[apart, after])
    args = triage.Shrinking(1, None, Path("unused"), 1)
    triage.named_by(cause, {"one.jsonl": failure}, Options("impl"), args, math.inf, [cause])
    assert tried == [first, after] and cause.confirmed
    assert f"named by {after} (it explains its FAILs too)" in capsys.readouterr().out
