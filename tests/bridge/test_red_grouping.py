"""A red run's FAILs handed from its judge to the workers that group
them (issue 40; bridge/runs/corpus.py `find_causes`): what trying rule
slips added to a FAIL does not go with it."""

from __future__ import annotations

import math
import pickle

import pytest

from bridge.checking import slips
from bridge.formats.profile import SPEC
from bridge.runs.corpus import sent
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL


def failure(name: str, signature: str = "views@message") -> slips.Failure:
    events = [{"event": "message", "kind": "user", "text": "x"}] * 3
    return slips.Failure(name, Scenario(constants_dict(SMALL), events), SPEC, (), 2, {}, signature)


def test_a_fail_tried_on_slips_is_sent_to_the_grouping_workers_without_them() -> None:
    tried = failure("corpus/a.jsonl")
    slip = next(s for s in slips.catalogue() if s.code is not None)
    tried.judged[(slip,)] = False
    tried.refuted.add(slip)
    tried.ran, tried.expected = {("queue", 1): 0}, [{}, {}, {}]
    back = pickle.loads(pickle.dumps(sent(tried)))
    assert (back.name, back.scenario, back.profile, back.lacks, back.index) == (
        tried.name,
        tried.scenario,
        SPEC,
        (),
        2,
    )
    assert not back.judged and not back.refuted and back.ran is None and back.expected is None
    assert tried.judged and tried.refuted, "the judge's own copy keeps what it found"
    assert sent(None) is None


def test_the_diverging_lines_slips_are_all_tried_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once its replay is over a run's whole scans try `WHOLE_SCANS` slips in
    all (bridge/runs/triage.py), however slow the machine; the slips at the
    diverging line are tried whatever is left of that count, and spend it."""
    tried: list[tuple[str, str]] = []

    def judge(self: slips.Failure, *found: slips.Slip) -> bool:
        tried.append((self.name, found[0].id))
        return False

    monkeypatch.setattr(slips.Failure, "replayed", lambda self: True)
    monkeypatch.setattr(slips.Failure, "reaches", lambda self, slip, at_divergence=False: True)
    monkeypatch.setattr(slips.Failure, "judge", judge)
    explaining = slips.Explaining(tries=5)
    first, second = failure("corpus/a.jsonl"), failure("corpus/b.jsonl", "zoom@zoom")
    narrow = [slip.id for slip in slips.catalogue()]  # every slip reaches the diverging line
    explaining.add(first)
    # The slips at the diverging line are all tried (no slip is left for
    # the whole scan); the count is spent.
    assert tried == [("corpus/a.jsonl", slip) for slip in narrow] and explaining.left < 0
    explaining.add(second)
    assert tried[len(narrow) :] == [("corpus/b.jsonl", slip) for slip in narrow]
    assert explaining.alone == [first, second]


def test_a_whole_scan_stops_at_the_count_left(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[str] = []

    def judge(self: slips.Failure, *found: slips.Slip) -> bool:
        tried.append(found[0].id)
        return False

    monkeypatch.setattr(
        slips.Failure, "reaches", lambda self, slip, at_divergence=False: not at_divergence
    )
    monkeypatch.setattr(slips.Failure, "judge", judge)
    assert slips.scan(failure("corpus/a.jsonl"), math.inf, True, 7) == []
    assert tried == [slip.id for slip in slips.catalogue()[:7]]
    assert slips.scan(failure("corpus/b.jsonl"), math.inf, False, 7) == [] and len(tried) == 7
