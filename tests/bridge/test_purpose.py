"""What was not tested is never ok (issue 33): a scenario is `ok` only when
the events it exists for were sent and refused as marked
(bridge/checking/purpose.py). Under `calls: self` an outcome marked
refused because its call does not run is sent where its call does not run
(bridge/wire/stream.py), so an engine that holds such outcomes instead of
refusing them fails; a start is never sent there, so the start rules'
scenarios are SKIPPED, saying why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bridge.checking.compare import Result
from bridge.checking.purpose import notes, purpose, skipped
from bridge.formats.kit import CORPUS, PROFILES
from bridge.formats.profile import parse
from bridge.runs.corpus import Options, check
from scenarios.format import Scenario, read

HOLDING = f"{sys.executable} {Path(__file__).parent / 'engines' / 'holding.py'}"
DEVIANT = parse(json.loads((PROFILES / "deviant.json").read_text()), "deviant.json")
BOTH = ["both_end_needs_running_line_fits", "both_end_needs_running_utf8"]


@pytest.mark.parametrize("name", BOTH)
def test_an_engine_holding_outcomes_under_calls_self_fails_where_it_should_refuse(
    name: str,
) -> None:
    """Each scenario's first event is an `end` of (1, 0), a merge whose
    halves are not even logged: its call cannot run, and SPEC 4.1 refuses
    it as `end_needs_running`. The holding engine answers it as taken."""
    path = CORPUS / f"{name}.jsonl"
    first = read(path).events[0]
    assert (first["event"], first["node"], first["refused"]) == ("end", [1, 0], "end_needs_running")
    # Against the deviant profile's transcripts, and against the model live.
    for live in (False, True):
        verdict = check(path, Options(HOLDING, quiet=True, live=live))
        assert verdict.status == "FAIL", verdict.reason
        assert verdict.divergence is not None
        assert (verdict.divergence["field"], verdict.divergence["position"]) == ("refused", 0)
        assert verdict.divergence["expected"] == "end_needs_running"
        # The engine that refuses them agrees, the rule checked under its profile.
        assert check(path, Options("impl", profile=DEVIANT, live=live)).status == "ok"


def test_a_start_rule_s_scenario_is_skipped_under_calls_self_saying_why() -> None:
    verdict = check(CORPUS / "refused_jobs_bound_0.jsonl", Options("impl", profile=DEVIANT))
    wanted = purpose(read(CORPUS / "refused_jobs_bound_0.jsonl"))[1]
    assert verdict.status == "SKIPPED"
    assert verdict.reason.startswith(
        f"not tested: it exists for its {len(wanted)} refusals by jobs_bound (family refused), "
        f"and {len(wanted)} never sent under the profile (events "
    )
    assert verdict.coverage is not None and verdict.coverage.compared == 0


def scenario(family: dict[str, object], *events: dict[str, object]) -> Scenario:
    return Scenario({"node": 64}, list(events), "test", notes=family)


def test_what_a_scenario_exists_for_is_read_from_its_header() -> None:
    events = [
        {"event": "settle", "refused": "settle_needs_wait"},
        {"event": "message", "kind": "user", "text": "a"},
        {"event": "zoom", "id": 0, "n": 1},
        {"event": "settle", "refused": "settle_needs_wait"},
        {"event": "wait", "refused": "one_wait"},
    ]
    refused = {"family": "refused", "rule": "settle_needs_wait"}
    assert purpose(scenario(refused, *events))[1] == {
        0: "settle_needs_wait",
        3: "settle_needs_wait",
    }
    both = {"family": "both", "rules": ["one_wait", "settle_needs_wait"]}
    assert purpose(scenario(both, *events))[1] == {4: "one_wait"}
    assert purpose(scenario({"family": "zoom"}, *events))[1] == {2: None}
    assert purpose(scenario({"family": "random"}, *events))[1] == {}
    checked = scenario(refused, *events)
    marks = {0: "settle_needs_wait", 3: "settle_needs_wait"}
    # Both sent and refused as marked: tested, no note.
    whole = Result(sent={0, 1, 3}, refused=marks)
    assert (skipped(checked, whole), notes(checked, whole)) == (None, [])
    # One not sent, or not refused so: a note, the verdict stands.
    missing = Result(sent={0, 1}, refused={0: "settle_needs_wait"})
    assert skipped(checked, missing) is None
    assert notes(checked, missing) == [
        "not all tested: it exists for its 2 refusals by settle_needs_wait (family refused), "
        "and 1 never sent under the profile (events 3)"
    ]
    accepted = Result(sent={0, 3}, refused={0: "settle_needs_wait"})
    assert (
        "and 1 sent but not refused so under the profile (events 3)" in notes(checked, accepted)[0]
    )
    # None tested: SKIPPED, saying why.
    none = Result(sent={1, 3}, refused={})
    assert skipped(checked, none) == (
        "not tested: it exists for its 2 refusals by settle_needs_wait (family refused), and 1 "
        "never sent under the profile (events 0) and 1 sent but not refused so under the "
        "profile (events 3)"
    )
    # Past a divergence nothing is known.
    none.coverage.stopped = True
    assert (skipped(checked, none), notes(checked, none)) == (None, [])
