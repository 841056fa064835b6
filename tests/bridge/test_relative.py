"""Events relative to the state (scenario format 3): resolved against the
model under the engine's profile and sent as absolute events, kept in
transcripts with the node they stood for; and what a run says of the events
delivered under a profile (scenarios/README.md, "Events under a profile")."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import bridge.cli as cli
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import delivery, notes
from bridge.formats import transcript
from bridge.formats.kit import CORPUS, PROFILES
from bridge.formats.profile import SPEC
from bridge.runs import expect
from bridge.runs.corpus import Options, check
from bridge.wire.process import dump
from bridge.wire.stream import from_model, from_transcript
from model.profile import Profile, from_options
from scenarios import format as scenario_format
from scenarios.format import Scenario
from scenarios.generate import DEFAULTS, constants_dict

ROOT = Path(__file__).resolve().parents[2]
ENGINES = Path(__file__).parent / "engines"
DEVIANT = PROFILES / "deviant.json"
SELF = Profile(calls="self")
CONSTANTS = constants_dict(replace(DEFAULTS, node=64, jobs=2))
LONG = {"event": "message", "kind": "user", "size": 100}
"""A message whose leaf needs a call (its line is over NODE)."""

EVENTS: list[dict[str, Any]] = [
    LONG,
    LONG,
    {"event": "start", "candidate": 1},
    {"event": "start", "candidate": 2},
    {"event": "end", "running": 0, "size": 10},
    {"event": "fail", "running": 5},
    {"event": "end", "running": 0, "size": 10},
]


def sent(scenario: Scenario, profile: Profile) -> list[tuple[int, str, list[int] | None]]:
    return [
        (e.position, e.line["event"], e.line.get("node"))
        for e in from_model(scenario, profile, strict=profile == SPEC)
        if e.position is not None
    ]


def test_under_spec_a_relative_event_is_the_node_it_names_in_queue_or_start_order() -> None:
    """Candidates (0,0), (0,1): candidate 1 is (0,1); then only (0,0) is left,
    and 2 mod 1 is 0. Running (0,1), (0,0): running 0 is (0,1), the oldest;
    then 5 mod 1 picks (0,0). Nothing runs at the last end: it is not sent."""
    assert sent(Scenario(CONSTANTS, EVENTS), SPEC) == [
        (0, "message", None),
        (1, "message", None),
        (2, "start", [0, 1]),
        (3, "start", [0, 0]),
        (4, "end", [0, 1]),
        (5, "fail", [0, 0]),
    ]


def test_under_calls_self_a_relative_outcome_ends_what_the_engine_runs() -> None:
    """The engine started (0,0), then (0,1): running 0 is (0,0); (0,1) then
    fails; the last end finds nothing running (the failed (0,1) waits for a
    retry), so it is not sent. Starts are never sent."""
    assert sent(Scenario(CONSTANTS, EVENTS), SELF) == [
        (0, "message", None),
        (1, "message", None),
        (4, "end", [0, 0]),
        (5, "fail", [0, 1]),
    ]


def test_a_relative_event_with_nothing_to_act_on_waits_for_the_event_that_makes_some() -> None:
    """The start at 3 finds (0,0) held after its failure: it waits, and goes
    right after the retry that frees it; the end at 5 finds nothing running
    until that start (SPEC 4)."""
    events: list[dict[str, Any]] = [
        LONG,
        {"event": "start", "candidate": 0},
        {"event": "fail", "running": 0},
        {"event": "start", "candidate": 0},
        {"event": "retry"},
        {"event": "end", "running": 0, "size": 10},
        {"event": "wait"},
    ]
    assert sent(Scenario(CONSTANTS, events), SPEC) == [
        (0, "message", None),
        (1, "start", [0, 0]),
        (2, "fail", [0, 0]),
        (4, "retry", None),
        (3, "start", [0, 0]),
        (5, "end", [0, 0]),
        (6, "wait", None),
    ]
    events[4] = {"event": "message", "kind": "user", "size": 1}
    assert [at for at, _, _ in sent(Scenario(CONSTANTS, events), SPEC)] == [0, 1, 2, 4, 3, 5, 6]


def test_a_settle_goes_on_unsettled_as_a_timeout_where_the_profile_leaves_work() -> None:
    """Under SPEC the failed (0,0)'s FAILURES-th failure builds it and the
    view is settled; with failure_cap none it is still unbuilt (SPEC 4, 10)."""
    events: list[dict[str, Any]] = [LONG, {"event": "wait"}]
    for _ in range(3):
        events += [{"event": "start", "candidate": 0}, {"event": "fail", "running": 0}]
        events.append({"event": "retry"})
    events.append({"event": "settle", "unsettled": "timeout"})
    scenario = Scenario({**CONSTANTS, "failures": 3}, events)
    assert sent(scenario, SPEC)[-1] == (len(events) - 1, "settle", None)
    assert sent(scenario, Profile(failure_cap="none"))[-1] == (len(events) - 1, "timeout", None)


@pytest.mark.parametrize("ending", ["settle", "timeout"])
def test_a_turn_end_that_finds_no_turn_waiting_is_not_sent_and_owed_only_if_a_turn_waits(
    ending: str,
) -> None:
    """A short message leaves the view settled: under `resume: self` the
    wait goes on by itself (SPEC 4, 10), so the relative settle or timeout
    after it has no turn to end: not sent, and not owed. Under SPEC it is
    sent; a profile whose turns only a settle or timeout ends owes it, so
    one not sent there would count as undelivered."""
    word = {"settle": {"unsettled": "timeout"}, "timeout": {"unwaited": "unsent"}}[ending]
    short = {"event": "message", "kind": "user", "size": 1}
    events: list[dict[str, Any]] = [short, {"event": "wait"}, {"event": ending, **word}, short]
    scenario = Scenario(CONSTANTS, events)
    assert sent(scenario, SPEC)[2] == (2, ending, None)
    resumed = Profile(resume="self")
    assert [at for at, _, _ in sent(scenario, resumed)] == [0, 1, 3]
    assert delivery(scenario, resumed, {0, 1, 3}, {}).events == 3
    assert delivery(scenario, SPEC, {0, 1, 3}, {}).unsent == (2,)


def test_the_wire_line_of_a_relative_event_names_only_its_node() -> None:
    lines = [e.line for e in from_model(Scenario(CONSTANTS, EVENTS), SPEC, strict=True)]
    assert lines[4] == {"event": "end", "node": [0, 1], "size": 10, "at": 4}
    assert all("running" not in line and "candidate" not in line for line in lines)


@pytest.mark.parametrize("profile", [SPEC, SELF], ids=["SPEC", "calls self"])
def test_a_transcript_keeps_the_node_each_relative_event_stood_for(
    tmp_path: Path, profile: Profile
) -> None:
    path = tmp_path / "relative.jsonl"
    scenario_format.write(Scenario(CONSTANTS, EVENTS), path)
    body = expect.records(path, profile)
    stored = tmp_path / "relative.jsonl.gz"
    header = transcript.Header(path.name, transcript.sha256(path), {}, 3)
    transcript.write(header, body, stored)
    scenario = scenario_format.read(path)
    live = [(e.line, e.expected) for e in from_model(scenario, profile, strict=False)]
    kept = [(e.line, e.expected) for e in from_transcript(scenario, stored)]
    assert kept == live
    assert (b'"at":2,"node":[0,1],' in body) == (profile is SPEC)
    assert (b'"at":4,"node":[0,0],' in body) == (profile is SELF)


def test_a_transcripts_line_for_a_relative_event_is_the_models_field_for_field(
    tmp_path: Path,
) -> None:
    """The line sent for a relative event, made from its transcript record,
    is the one the model sends: without the scenario's refusal mark (an end
    whose line is over NODE), with its position last."""
    over = {"event": "end", "running": 0, "size": 100, "refused": "line_fits"}
    path = tmp_path / "relative.jsonl"
    scenario_format.write(Scenario(CONSTANTS, [*EVENTS[:3], over, *EVENTS[3:]]), path)
    stored = tmp_path / "relative.jsonl.gz"
    header = transcript.Header(path.name, transcript.sha256(path), {}, 3)
    transcript.write(header, expect.records(path, SPEC), stored)
    scenario = scenario_format.read(path)
    live = [e.line for e in from_model(scenario, SPEC, strict=True)]
    kept = [e.line for e in from_transcript(scenario, stored)]
    assert kept == live
    assert kept[3] == {"event": "end", "node": [0, 1], "size": 100, "at": 3}
    assert all(list(line)[-1] == "at" for line in kept[:-1])


HOSTILE = [
    'a "quoted" \\ back\\slash \\" and \\u0022',
    "new\nline\r\n\x00\x1f\x7f tab\t",
    "\u2028\u2029 line separators, \u00e9\u20ac\U0001f600",
    "</script><!-- &amp; '",
    "lone \ud800 surrogate",
    "\udfff\ud800 the other way round",
]
"""Texts a scenario may hold that an encoder must escape; the last two have
no UTF-8 form (PROTOCOL.md: sent with `\\u` escapes, refused as `utf8`)."""


@pytest.mark.parametrize("text", HOSTILE)
def test_a_line_made_from_an_event_is_what_the_json_encoder_writes(text: str) -> None:
    """A relative event goes on the wire as `dump` writes its line: byte for
    byte what `json.dumps` gives (UTF-8, or `\\u` escapes for a text with no
    UTF-8 form), whatever its texts hold, keys included."""
    line = {
        "event": "end",
        "replies": [{"text": text}, {"size": 3}],
        text: [text, 1, 2.5, None, True],
        "node": [0, 1],
        "at": 4,
    }
    try:
        expected = json.dumps(line, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        expected = json.dumps(line).encode("ascii")
    assert dump(line) == expected
    assert json.loads(dump(line)) == line
    assert b"\n" not in dump(line)


def test_a_transcript_record_of_a_relative_event_without_its_node_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "relative.jsonl"
    scenario_format.write(Scenario(CONSTANTS, EVENTS), path)
    body = expect.records(path, SPEC).replace(b'"at":2,"node":[0,1],', b'"at":2,')
    stored = tmp_path / "relative.jsonl.gz"
    transcript.write(transcript.Header(path.name, transcript.sha256(path), {}, 3), body, stored)
    with pytest.raises(transcript.TranscriptError, match=r"\.gz:4: event 2 is relative"):
        list(from_transcript(scenario_format.read(path), stored))


def test_delivery_counts_what_was_not_sent_and_what_the_model_refused_unmarked() -> None:
    scenario = Scenario(CONSTANTS, [*EVENTS, {"event": "settle"}])
    found = delivery(scenario, SPEC, sent={0, 1, 2, 3, 4, 5, 7}, refused={7: "settle_needs_wait"})
    assert (found.events, found.unsent, found.refused, found.delivered) == (8, (6,), (7,), 6)
    said = notes(found)
    assert "events 6" in said[0] and "events 7" in said[1]
    # Under calls: self the starts are the engine's: not counted.
    assert delivery(scenario, SELF, sent={0, 1, 4, 5, 7}, refused={}).events == 6
    # Nor is an event not sent for a capability the engine lacks (the coverage counts it).
    assert delivery(scenario, SPEC, sent={0, 1, 2, 3, 4, 5}, refused={}, withheld={7}).events == 7
    # A refusal the scenario marks is delivered as meant.
    marked = Scenario(CONSTANTS, [{"event": "settle", "refused": "settle_needs_wait"}])
    assert notes(delivery(marked, SPEC, sent={0}, refused={0: "settle_needs_wait"})) == []


def test_a_refusal_by_the_kinds_rule_is_delivered_and_any_other_unmarked_one_is_not() -> None:
    """What decides is the rule the model named, not the event: a message
    the profile's `kinds` leaves out is refused by rule `kind` (delivered:
    the engine must refuse it too); the same message refused by another
    rule, or a zoom refused beyond the messages taken, is not delivered."""
    fewer = from_options({"kinds": ["user", "unii"]})
    scenario = Scenario(
        CONSTANTS,
        [
            {"event": "message", "kind": "tool", "size": 10},
            {"event": "message", "kind": "tool", "text": "a\ud800"},
            {"event": "zoom", "id": 0, "n": 1},
        ],
    )
    rules = {}
    for exchange in from_model(scenario, fewer, strict=False):
        if exchange.position is not None and exchange.refused:
            rules[exchange.position] = exchange.expected["refused"]
    assert rules == {0: "kind", 1: "kind", 2: "zoom"}
    found = delivery(scenario, fewer, sent={0, 1, 2}, refused=rules)
    assert (found.refused, found.delivered) == ((2,), 2)
    said = delivery(scenario, fewer, sent={0, 1, 2}, refused={0: "kind", 1: "utf8", 2: "zoom"})
    assert (said.refused, said.delivered) == ((1, 2), 1)


def test_a_replay_for_refusals_only_sends_and_refuses_as_the_full_one() -> None:
    """What delivery is counted from (tests/scenarios/delivery.py): with
    `refusals_only` the model is sent the same lines in the same order and
    refuses the same of them by the same rules as in a full replay, under
    SPEC, calls self and fewer kinds; its answers hold nothing else."""
    made = Scenario(
        CONSTANTS,
        [*EVENTS, {"event": "settle"}, {"event": "message", "kind": "tool", "size": 10}],
    )
    marked = scenario_format.read(CORPUS / "refused_end_needs_running_0.jsonl")
    rules: set[str | None] = set()
    for scenario in (made, marked):
        for profile in (SPEC, SELF, from_options({"kinds": ["user", "unii"]})):
            full, lean = (
                [
                    (e.position, e.line, e.sent, e.lacking, e.expected.get("refused"))
                    for e in from_model(scenario, profile, strict=False, refusals_only=only)
                ]
                for only in (False, True)
            )
            assert lean == full
            rules |= {e[-1] for e in full}
            answers = from_model(scenario, profile, strict=False, refusals_only=True)
            assert all(set(e.expected) <= {"refused"} for e in answers)
    assert rules == {None, "settle_needs_wait", "kind", "end_needs_running"}


def test_the_coverage_says_the_delivered_fraction_and_sums_it() -> None:
    one = Coverage(8, compared=8, owed=8, delivered=6, ended=1)
    assert one.summary() == (
        "compared 8 of 8 events (100.0 %); delivered 6 of 8 events under the profile (75.0 %)"
    )
    total = Coverage()
    total += one
    total += Coverage(4, compared=2, stopped=True)
    total += Coverage(3, compared=3, owed=2, delivered=2, ended=1)
    assert (total.owed, total.delivered, total.ended) == (10, 8, 2)
    assert total.summary().endswith(
        "delivered 8 of 10 events under the profile (80.0 %) in the 2 scenarios replayed to the end"
    )
    assert Coverage.from_json(total.to_json()) == total
    stopped = Coverage(4, compared=2, stopped=True)
    assert stopped.summary().endswith(
        "delivered under the profile: not counted (no replay went to the end)"
    )


def test_a_run_says_what_it_delivered_and_only_when_it_went_to_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "relative.jsonl"
    scenario_format.write(Scenario(CONSTANTS, EVENTS), path)
    profile = tmp_path / "self.json"
    profile.write_text('{"calls": "self"}')
    engine = f"{sys.executable} -m impl.protocol --profile {profile}"
    verdict = check(path, Options(engine, quiet=True))
    assert verdict.status == "ok", verdict.reason
    assert verdict.coverage is not None
    counted = verdict.coverage
    assert (counted.owed, counted.delivered, counted.ended) == (5, 4, 1)
    assert verdict.notes[0].startswith("1 events never sent") and "events 6" in verdict.notes[0]
    assert cli.main(["compare", str(path), "--engine", engine]) == 0
    out = capsys.readouterr().out
    assert "agrees at all 5 answers" in out
    assert "delivered 4 of 5 events under the profile (80.0 %)" in out
    assert "note: 1 events never sent" in out


def test_a_run_stopped_at_a_divergence_says_nothing_of_what_it_did_not_send() -> None:
    buggy = f"{sys.executable} {ENGINES / 'deviant_bug.py'} --profile {DEVIANT}"
    stopped = check(CORPUS / "chooser_0.jsonl", Options(buggy, quiet=True))
    assert stopped.status == "FAIL"
    assert stopped.coverage is not None and stopped.coverage.ended == 0
    assert stopped.notes == []
    assert "delivered under the profile: not counted" in stopped.coverage.summary()


def test_every_report_of_a_run_says_what_it_delivered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scenario above under `calls: self`: 5 events are owed (its 2
    starts are the engine's); the engine starts both leaves, the first end
    and the fail take them, and the last end finds no call running: never
    sent, so 4 of 5 are delivered."""
    path = tmp_path / "relative.jsonl"
    scenario_format.write(Scenario(CONSTANTS, EVENTS), path)
    profile = tmp_path / "self.json"
    profile.write_text('{"calls": "self"}')
    engine = f"{sys.executable} -m impl.protocol --profile {profile}"
    data, junit, pages = tmp_path / "run.json", tmp_path / "run.xml", tmp_path / "pages"
    code = cli.main(
        ["corpus", str(path), "--engine", engine, "--jobs", "1", "--json", str(data)]
        + ["--junit-xml", str(junit), "--report", str(pages)]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    said = "delivered 4 of 5 events under the profile (80.0 %)"
    assert said in out.splitlines()[-2]
    report = json.loads(data.read_text("utf-8"))
    jsonschema.validate(report, json.loads((ROOT / "bridge" / "report.schema.json").read_text()))
    expected = {"events": 5, "delivered": 4, "fraction": 0.8, "scenarios": 1}
    assert report["coverage"]["delivery"] == expected
    assert report["scenarios"][0]["coverage"]["delivery"] == expected
    suite = ET.parse(junit).getroot()
    listed = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (listed["events_to_deliver"], listed["events_delivered"]) == ("5", "4")
    assert listed["fraction_delivered"] == "0.800000"
    case = suite.find("testcase/system-out")
    assert case is not None and case.text is not None and said in case.text
    front = (pages / "index.html").read_text("utf-8")
    assert said in front and "<td>4 of 5 (80.0 %)</td>" in front
