"""A red run's FAILs handed from its judge to the workers that group
them (issue 40; bridge/runs/corpus.py `find_causes`): what trying rule
slips added to a FAIL does not go with it."""

from __future__ import annotations

import pickle

from bridge.checking import slips
from bridge.formats.profile import SPEC
from bridge.runs.corpus import sent
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL


def test_a_fail_tried_on_slips_is_sent_to_the_grouping_workers_without_them() -> None:
    events = [{"event": "message", "kind": "user", "text": "x"}] * 3
    failure = slips.Failure(
        "corpus/a.jsonl", Scenario(constants_dict(SMALL), events), SPEC, (), 2, {}
    )
    slip = next(s for s in slips.catalogue() if s.code is not None)
    failure.judged[(slip,)] = False
    failure.refuted.add(slip)
    failure.ran, failure.expected = {("queue", 1): 0}, [{}, {}, {}]
    try:
        pickle.dumps(failure)
    except TypeError:
        pass
    else:  # pragma: no cover - the fixture must hold what cannot be pickled
        raise AssertionError("a slip's code was expected to be unpicklable")
    back = pickle.loads(pickle.dumps(sent(failure)))
    assert (back.name, back.scenario, back.profile, back.lacks, back.index) == (
        failure.name,
        failure.scenario,
        SPEC,
        (),
        2,
    )
    assert not back.judged and not back.refuted and back.ran is None and back.expected is None
    assert failure.judged and failure.refuted, "the judge's own copy keeps what it found"
    assert sent(None) is None
