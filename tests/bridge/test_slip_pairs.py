"""Two rule slips judged together (bridge/checking/slips.py `Failure.judge`):
what a sift finds of each slip alone (`Failure.same`: it changes no answer
up to the divergence) rules out that slip alone, never a pair holding it.
Two slips can change together what neither changes alone: `_build_free`
slipped runs the loop that builds queued free leaves under SPEC's
`free_leaves: at_once`, where the model's `free_offered` finds none to
build; `free_offered` slipped (the first candidate that is not a free
leaf) is called only from that loop. Together they build leaves at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bridge.checking import slips
from bridge.formats.profile import SPEC
from bridge.wire.stream import from_model
from tests.bridge.helpers import random_scenario

OFFERED = "slip:machine.free_offered.not-if.0"
BUILT = "slip:machine._build_free.eq-ne.0"


def answers(scenario: Any, *applied: slips.Slip) -> list[dict[str, Any]]:
    """The model's answers to `scenario`, with `applied` slips."""
    with slips.applied(*applied, events=len(scenario.events)):
        return [slips.answered(e) for e in from_model(scenario, SPEC, False, ()) if e.sent]


def test_a_pair_is_judged_though_the_sift_found_each_alone_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An engine that is the model with both slips: its FAIL (the answers
    before it kept, as a run reads them from the transcript) is explained
    by the two slips together, though a sift finds each alone changing no
    answer; each alone is ruled out without a replay."""
    scenario = random_scenario(0, 40)
    offered, built = slips.named(OFFERED), slips.named(BUILT)
    right, both = answers(scenario), answers(scenario, offered, built)
    # Each alone changes no answer of the whole scenario; together they do.
    assert answers(scenario, offered) == right and answers(scenario, built) == right
    index = next(k for k, (a, b) in enumerate(zip(right, both, strict=True)) if a != b)
    failure = slips.Failure("engine", scenario, SPEC, (), index, both[index], "views@message")
    failure.expected = right[: index + 1]
    failure.sift([offered, built])
    assert {offered, built} <= failure.same
    replays: list[tuple[slips.Slip | None, ...]] = []
    applied = slips.applied

    @contextmanager
    def counted(*tried: slips.Slip | None, **given: Any) -> Iterator[None]:
        replays.append(tried)
        with applied(*tried, **given):
            yield

    monkeypatch.setattr(slips, "applied", counted)
    assert not failure.explained_by(offered) and not failure.explained_by(built)
    assert replays == []
    assert failure.explained_by(offered, built)
    assert replays == [(offered, built)]


@pytest.mark.parametrize("seen", ["traced", "probed"])
def test_a_pair_is_judged_though_the_model_alone_never_runs_one_of_them(seen: str) -> None:
    """What the model alone runs rules out a pair only when it runs neither
    slip: `free_offered` is never called by the model alone (its loop runs
    only under `_build_free` slipped), yet the pair explains the FAIL,
    whether the FAIL was traced for a scan (`reaches`) or, long, probed for
    the functions it calls (`calls`)."""
    count = 40 if seen == "traced" else slips.SCANNED_WHILE_REPLAYING + 200
    scenario = random_scenario(0, count)
    offered, built = slips.named(OFFERED), slips.named(BUILT)
    right, both = answers(scenario), answers(scenario, offered, built)
    index = next(k for k, (a, b) in enumerate(zip(right, both, strict=True)) if a != b)
    failure = slips.Failure("engine", scenario, SPEC, (), index, both[index], "views@message")
    failure.expected = right[: index + 1]
    if seen == "traced":
        failure.trace()
        assert not failure.reaches(offered) and failure.reaches(built)
    else:
        assert not failure.explained_by(offered)
        assert not failure.calls(offered) and failure.calls(built)
    assert failure.explained_by(offered, built)
