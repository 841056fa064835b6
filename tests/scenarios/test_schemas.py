"""The JSON Schemas, run through a real validator: scenario lines
(scenarios/schema.json, which accepts what scenarios/format.py accepts),
transcript lines (scenarios/transcript.schema.json) and the protocol answers
of `python -m impl.protocol` (bridge/answer.schema.json); each rejects bad lines.

Validating every line takes minutes (`python -m tests.scenarios.schemas`
does it), so the tests validate a fixed sample: of every scenario its header
and first CORPUS_HEAD events, and all of WHOLE_SCENARIOS; of every transcript
its header, first TRANSCRIPT_HEAD records and final detail record, and all
of WHOLE_TRANSCRIPTS. Tests below check that the sample holds every event
name and every answer field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bridge.formats.capabilities import CAPABILITIES
from bridge.formats.layout import expected_path
from bridge.formats.profile import SPEC, parse
from bridge.wire import observe
from bridge.wire.stream import DETAIL_REQUEST, from_transcript
from model.constants import KINDS
from model.profile import CALLS, FAILURE_CAPS, TYPES, Profile
from scenarios import format as scenario_format
from scenarios.format import FORMAT_1, FORMAT_2, ScenarioError
from scenarios.format import parse as parse_scenario
from tests.scenarios.schemas import (
    ANSWER,
    CORPUS,
    EXPECTED,
    ROOT,
    SCENARIO,
    TRANSCRIPT,
    Numbered,
    invalid,
    invalid_scenario_lines,
    numbered,
    raw_lines,
    schema,
    validator,
)
from tests.scenarios.spec import profile_defaults, refusal_rules
from tests.scenarios.test_format import (
    BAD_EVENTS,
    BAD_RELATIVE,
    CONSTANTS,
    HEADER_1,
    HEADER_2,
    HEADER_3,
    VERSION_2_ONLY,
    VERSION_3_ONLY,
)

CORPUS_HEAD = 50
WHOLE_SCENARIOS = ("chooser_2", "zoom_2", *(p.stem for p in CORPUS.glob("refused_*_0.jsonl")))
DEVIANT = ROOT / "scenarios" / "profiles" / "deviant.json"
PROFILES = {"SPEC": SPEC, "deviant": parse(json.loads(DEVIANT.read_text(encoding="utf-8")), "")}
TRANSCRIPT_HEAD = 10
WHOLE_TRANSCRIPTS = tuple(
    str(expected_path(CORPUS / "zoom_2.jsonl", profile).relative_to(EXPECTED))
    for profile in PROFILES.values()
)

SCENARIO_FILES = sorted(CORPUS.glob("*.jsonl"))
TRANSCRIPT_FILES = sorted(EXPECTED.rglob("*.jsonl.gz"))


@cache
def scenario_sample(path: Path) -> list[Numbered]:
    raw = raw_lines(path)
    if path.stem in WHOLE_SCENARIOS:
        return numbered(raw)
    return numbered(raw, range(1, min(len(raw), CORPUS_HEAD + 1) + 1))


@cache
def transcript_sample(path: Path) -> list[Numbered]:
    raw = raw_lines(path)
    if str(path.relative_to(EXPECTED)) in WHOLE_TRANSCRIPTS:
        return numbered(raw)
    return numbered(raw, sorted({*range(1, min(len(raw), TRANSCRIPT_HEAD + 1) + 1), len(raw)}))


def test_the_schemas_are_draft_2020_12_schemas() -> None:
    for path in (SCENARIO, TRANSCRIPT, ANSWER):
        assert schema(path)["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema(path))


def test_every_sampled_corpus_line_is_valid() -> None:
    """One test for every file (each problem names its file and line): a
    test per file cost more in pytest's bookkeeping than in checking."""
    problems = [
        problem
        for path in SCENARIO_FILES
        for problem in invalid_scenario_lines(path, scenario_sample(path))
    ]
    assert problems == []


def test_the_corpus_sample_holds_every_event_and_what_version_2_adds() -> None:
    events = [value for path in SCENARIO_FILES for _, value in scenario_sample(path)[1:]]
    assert {e["event"] for e in events} == set(scenario_format.EVENTS)
    assert any("replies" in e for e in events)
    assert any(e.get("kind") not in (*KINDS, None) for e in events), "an unknown kind, marked"
    assert {e["refused"] for e in events if "refused" in e} == set(refusal_rules()) - {
        "self_starts"
    }


def test_every_sampled_transcript_line_is_valid() -> None:
    """One test for every file, as above; a line shared by several
    transcripts is checked once (`first_problem`)."""
    check = validator(TRANSCRIPT)
    problems = [
        problem
        for path in TRANSCRIPT_FILES
        for problem in invalid(check, transcript_sample(path), path)
    ]
    assert problems == []


def test_the_transcript_sample_holds_every_field_of_an_answer() -> None:
    fields = {
        key for path in TRANSCRIPT_FILES for _, line in transcript_sample(path) for key in line
    }
    defs = schema(ANSWER)["$defs"]
    wanted = set(defs["event_fields"]["properties"]) | set(defs["detail_fields"]["properties"])
    assert wanted | {"format", "corpus", "scenario", "scenario_sha256", "profile", "at"} <= fields


ANSWERED = ("chooser_2", "zoom_2", "refused_utf8_0", "refused_line_fits_0", "empty_chat")
"""Scenarios whose answers from `python -m impl.protocol` are validated: the
chooser, zoom, refusals (lone surrogates among them) and the empty chat; each
up to its event ANSWERED_EVENTS, then the final detail request."""
ANSWERED_EVENTS = 300


def requests(profile: Profile) -> Iterator[tuple[str, str]]:
    """Each line the bridge sends for ANSWERED under `profile`, in one session,
    with the `$defs` of bridge/answer.schema.json its answer must match."""
    for name in ANSWERED:
        path = CORPUS / f"{name}.jsonl"
        scenario = scenario_format.read(path)
        yield scenario_format.header_line(scenario), "answer_to_header"
        sent = from_transcript(scenario, expected_path(path, profile))
        for exchange in islice((x for x in sent if x.position is not None), ANSWERED_EVENTS):
            yield json.dumps(exchange.line), "answer_to_event"
        yield json.dumps(DETAIL_REQUEST), "answer_to_detail"


@pytest.mark.parametrize("name", PROFILES)
def test_impl_protocol_answers_are_valid(name: str) -> None:
    profile = PROFILES[name]
    sent = list(requests(profile))
    argv = [] if profile == SPEC else ["--profile", str(DEVIANT)]
    done = subprocess.run(
        [sys.executable, "-m", "impl.protocol", *argv],
        input="".join(line + "\n" for line, _ in sent).encode(),
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    answers = [json.loads(line) for line in done.stdout.decode().split("\n")[:-1]]
    assert len(answers) == len(sent)
    answered = list(zip(answers, (kind for _, kind in sent), strict=True))
    problems = [
        f"answer {k} ({kind}): {error.message[:200]}"
        for k, (answer, kind) in enumerate(answered)
        for error in list(validator(ANSWER, kind).iter_errors(answer))[:1]
    ]
    assert problems == []
    seen = {field for answer, kind in answered if kind == "answer_to_event" for field in answer}
    wanted = {*observe.BRIEF, *observe.BATCH, *observe.OPTIONAL}
    assert seen == (wanted if profile.self_calls else wanted - {"started"})


def test_the_scenario_schema_names_what_the_format_checks() -> None:
    defs = schema(SCENARIO)["$defs"]
    header = defs["header"]
    assert header["properties"]["format"]["enum"] == list(scenario_format.FORMATS)
    assert set(header["properties"]["constants"]["required"]) == set(scenario_format.CONSTANTS)
    assert defs["event"]["properties"]["event"]["enum"] == list(scenario_format.EVENTS)
    branches: dict[str, dict[str, Any]] = {}
    for branch in defs["event"]["allOf"]:
        said = branch["if"]["properties"]["event"]
        for name in said.get("enum", [said.get("const")]):
            assert name not in branches
            branches[name] = branch["then"]
    for name, fields in scenario_format.EVENTS.items():
        assert set(branches[name]["properties"]) == {"event", "refused", *fields}
    kinds = branches["message"]["anyOf"][1]["properties"]["kind"]["enum"]
    assert kinds == list(KINDS)
    assert defs["size"]["maximum"] == scenario_format.MAX_SIZE


def test_the_answer_schemas_name_the_protocol_s_fields() -> None:
    defs = schema(ANSWER)["$defs"]
    fields = defs["event_fields"]
    assert fields["required"] == list(observe.BRIEF)
    assert fields["then"]["required"] == list(observe.BATCH)
    assert set(fields["properties"]) == {*observe.BRIEF, *observe.BATCH, *observe.OPTIONAL}
    assert defs["detail_fields"]["required"] == list(observe.DETAIL)
    assert defs["rule"]["enum"] == list(refusal_rules())
    options = defs["profile"]["properties"]
    assert set(options) == set(TYPES)
    assert options["failure_cap"]["enum"] == list(FAILURE_CAPS)
    assert options["calls"]["enum"] == list(CALLS)
    assert options["kind_words"]["propertyNames"]["enum"] == list(KINDS)
    header = schema(TRANSCRIPT)["$defs"]["header"]
    assert set(header["properties"]["profile"]["required"]) == set(TYPES)
    ready = defs["answer_to_header"]["oneOf"][0]["properties"]
    assert ready["capabilities"]["items"]["enum"] == [c.name for c in CAPABILITIES]


def format_accepts(lines: list[str]) -> bool:
    try:
        parse_scenario(lines)
    except ScenarioError:
        return False
    return True


def schema_accepts(header: dict[str, Any], line: Any | None) -> bool:
    """Whether schema.json takes the header and, if given, the line as an
    event of the header's version."""
    if not validator(SCENARIO).is_valid(header):
        return False
    if line is None:
        return True
    definition = {FORMAT_1: "event_1", FORMAT_2: "event_2"}.get(header["format"])
    check = validator(SCENARIO, definition)
    return check.is_valid(line)  # type: ignore[no-any-return]


GOOD_EVENTS: list[dict[str, Any]] = [
    {"event": "message", "kind": "user", "size": 16_777_216},
    {"event": "message", "kind": "tool", "text": "a\ud800"},
    {"event": "start", "node": [3, 5]},
    {"event": "end", "node": [0, 0], "line": ""},
    {"event": "end", "node": [0, 0], "size": 0},
    {"event": "end", "node": [0, 0], "replies": [{"text": ""}, {"size": 0}]},
    {"event": "fail", "node": [0, 9]},
    {"event": "wait"},
    {"event": "settle"},
    {"event": "timeout"},
    {"event": "retry"},
    {"event": "zoom", "id": 8, "n": 8},
    {"event": "start", "node": [0, 0], "refused": "any rule name"},
    {"event": "message", "kind": "bot", "size": 3, "refused": "kind"},
]
EVENT_CASES = [
    *GOOD_EVENTS,
    *(e for e, _ in [*BAD_EVENTS, *VERSION_2_ONLY, *VERSION_3_ONLY, *BAD_RELATIVE]),
]


@pytest.mark.parametrize(
    "header", [HEADER_1, HEADER_2, HEADER_3], ids=["version 1", "version 2", "version 3"]
)
@pytest.mark.parametrize("event", EVENT_CASES)
def test_the_scenario_schema_takes_an_event_exactly_when_format_py_does(
    header: dict[str, Any], event: dict[str, Any]
) -> None:
    expected = format_accepts([json.dumps(header), json.dumps(event)])
    assert schema_accepts(header, event) == expected


HEADER_CASES: list[dict[str, Any]] = [
    HEADER_2,
    {"format": HEADER_1["format"], "constants": CONSTANTS},
    {**HEADER_1, "generator": 5, "seed": "any", "notes": {}},
    {**HEADER_1, "constants": {**CONSTANTS, "retry": 2.5, "settle_timeout": 0}},
    {**HEADER_1, "format": "optchat-scenario/3"},
    {**HEADER_1, "format": "optchat-scenario/4"},
    {**HEADER_1, "extra": 1},
    {**HEADER_1, "constants": {**CONSTANTS, "extra": 1}},
    {**HEADER_1, "constants": {k: v for k, v in CONSTANTS.items() if k != "tries"}},
    {**HEADER_1, "constants": {**CONSTANTS, "jobs": -1}},
    {**HEADER_1, "constants": {**CONSTANTS, "jobs": True}},
    {**HEADER_1, "constants": {**CONSTANTS, "jobs": 1.5}},
    {**HEADER_1, "constants": {**CONSTANTS, "retry": -0.5}},
    {"format": HEADER_1["format"]},
    [HEADER_1],
]


@pytest.mark.parametrize("header", HEADER_CASES)
def test_the_scenario_schema_takes_a_header_exactly_when_format_py_does(header: Any) -> None:
    assert schema_accepts(header, None) == format_accepts([json.dumps(header)])


def test_a_fraction_where_a_natural_is_wanted_is_what_only_format_py_refuses() -> None:
    """As the schema's description says: JSON Schema counts 1.0 as an integer."""
    header = {**HEADER_1, "constants": {**CONSTANTS, "node": 512.0}}
    assert schema_accepts(header, None) and not format_accepts([json.dumps(header)])


BRIEF: dict[str, Any] = {
    "size": 29,
    "shrinking": False,
    "merges": [],
    "cmerges": [],
    "view_digest": 824515495,
    "cview_digest": 824515495,
    "queue": [[0, 0]],
    "queue_waiting": [[0, 0]],
}
BATCH: dict[str, Any] = {
    "merges": [[1, 0]],
    "view": [[1, 0]],
    "cview": [[1, 0]],
    "render_crc": 0,
    "contexts_crc": [[[0, 2], 4294967295]],
}
DETAIL: dict[str, Any] = {
    "view": [[0, 0]],
    "cview": [[0, 0]],
    "render": "<chat>\n0+1|user: a\u2028b\n</chat>",
    "render_timed_out": "<chat>\n</chat>",
    "contexts": [[[0, 1], "<chat>\n0+1|user: a b\n</chat>"]],
}
READY: dict[str, Any] = {
    "ready": True,
    "protocol": 2,
    "engine": "mine 1.4",
    "profile": {"trim_lines": True, "kind_words": {"unii": "talk"}, "calls": "self"},
    "rule_names": False,
    "sessions": True,
}
SHA = "0" * 64
HEADER: dict[str, Any] = {
    "format": "optchat-transcript/2",
    "corpus": 2,
    "scenario": "zoom_0.jsonl",
    "scenario_sha256": SHA,
    "profile": profile_defaults(),
}


def without(value: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != key}


CHECKED: list[tuple[str, Path, str | None, bool, Any]] = [
    # (what, schema, $defs, valid?, line)
    ("a brief answer", ANSWER, "answer_to_event", True, BRIEF),
    ("a refusal", ANSWER, "answer_to_event", True, {**BRIEF, "refused": "queue_order"}),
    ("a refusal, no name", ANSWER, "answer_to_event", True, {**BRIEF, "refused": True}),
    ("a batch", ANSWER, "answer_to_event", True, {**BRIEF, **BATCH, "started": [[0, 2]]}),
    ("an engine's own field", ANSWER, "answer_to_event", True, {**BRIEF, "x-took": 3}),
    ("unsupported", ANSWER, "answer_to_event", True, {"unsupported": "zoom"}),
    ("no size", ANSWER, "answer_to_event", False, without(BRIEF, "size")),
    ("no queue_waiting", ANSWER, "answer_to_event", False, without(BRIEF, "queue_waiting")),
    ("shrinking 0", ANSWER, "answer_to_event", False, {**BRIEF, "shrinking": 0}),
    ("a digest of 2^32", ANSWER, "answer_to_event", False, {**BRIEF, "view_digest": 1 << 32}),
    ("a leaf merged", ANSWER, "answer_to_event", False, {**BRIEF, **BATCH, "merges": [[0, 1]]}),
    ("a node of three", ANSWER, "answer_to_event", False, {**BRIEF, "queue": [[0, 1, 2]]}),
    ("a batch without its views", ANSWER, "answer_to_event", False, {**BRIEF, "merges": [[1, 0]]}),
    ("views without a batch", ANSWER, "answer_to_event", False, {**BRIEF, "view": [[0, 0]]}),
    ("an unknown rule", ANSWER, "answer_to_event", False, {**BRIEF, "refused": "nope"}),
    (
        "a refusal that merged",
        ANSWER,
        "answer_to_event",
        False,
        {**BRIEF, **BATCH, "refused": "kind"},
    ),
    (
        "a refusal that started",
        ANSWER,
        "answer_to_event",
        False,
        {**BRIEF, "refused": "kind", "started": []},
    ),
    ("a zoom that merged", ANSWER, "answer_to_event", False, {**BRIEF, **BATCH, "zoom": "x"}),
    ("a line and a zoom", ANSWER, "answer_to_event", False, {**BRIEF, "line": "x", "zoom": "y"}),
    ("an empty line", ANSWER, "answer_to_event", False, {**BRIEF, "line": ""}),
    ("an unknown field", ANSWER, "answer_to_event", False, {**BRIEF, "extra": 1}),
    ("unsupported, not a string", ANSWER, "answer_to_event", False, {"unsupported": {}}),
    ("the detail", ANSWER, "answer_to_detail", True, DETAIL),
    ("the empty chat", ANSWER, "answer_to_detail", True, {**DETAIL, "render": "<chat>\n</chat>"}),
    ("no contexts", ANSWER, "answer_to_detail", False, without(DETAIL, "contexts")),
    ("a render cut", ANSWER, "answer_to_detail", False, {**DETAIL, "render": "<chat>\n"}),
    (
        "a render with a newline kept",
        ANSWER,
        "answer_to_detail",
        False,
        {**DETAIL, "render": "<chat>\n0+1|a\rb\n</chat>"},
    ),
    ("a brief answer at the end", ANSWER, "answer_to_detail", False, BRIEF),
    ("ready, protocol 2", ANSWER, "answer_to_header", True, READY),
    ("ready, protocol 1 (retired)", ANSWER, "answer_to_header", False, {"ready": True}),
    ("not ready", ANSWER, "answer_to_header", True, {"ready": False, "unsupported": {"node": "x"}}),
    ("protocol 3", ANSWER, "answer_to_header", False, {**READY, "protocol": 3}),
    ("an unknown option", ANSWER, "answer_to_header", False, {**READY, "profile": {"fast": True}}),
    (
        "a word with ': '",
        ANSWER,
        "answer_to_header",
        False,
        {**READY, "profile": {"kind_words": {"unii": "a: b"}}},
    ),
    (
        "a word for no kind",
        ANSWER,
        "answer_to_header",
        False,
        {**READY, "profile": {"kind_words": {"bot": "b"}}},
    ),
    (
        "not ready, no reason",
        ANSWER,
        "answer_to_header",
        False,
        {"ready": False, "unsupported": {}},
    ),
    ("a brief answer to a header", ANSWER, "answer_to_header", False, BRIEF),
    ("any line: a brief answer", ANSWER, None, True, BRIEF),
    ("any line: the detail", ANSWER, None, True, DETAIL),
    ("any line: ready", ANSWER, None, True, READY),
    ("any line: half a detail", ANSWER, None, False, without(DETAIL, "view")),
    ("a transcript header", TRANSCRIPT, None, True, HEADER),
    ("a record", TRANSCRIPT, None, True, {"at": 0, **BRIEF}),
    ("the detail record", TRANSCRIPT, None, True, {"detail": True, **DETAIL}),
    ("corpus 0", TRANSCRIPT, None, False, {**HEADER, "corpus": 0}),
    ("a short SHA-256", TRANSCRIPT, None, False, {**HEADER, "scenario_sha256": SHA[1:]}),
    ("an upper-case SHA-256", TRANSCRIPT, None, False, {**HEADER, "scenario_sha256": "A" * 64}),
    (
        "an option left out",
        TRANSCRIPT,
        None,
        False,
        {**HEADER, "profile": without(HEADER["profile"], "calls")},
    ),
    ("format 1", TRANSCRIPT, None, False, {**HEADER, "format": "optchat-transcript/1"}),
    ("a record at -1", TRANSCRIPT, None, False, {"at": -1, **BRIEF}),
    ("a record with x-", TRANSCRIPT, None, False, {"at": 0, **BRIEF, "x-took": 3}),
    ("a record refusing true", TRANSCRIPT, None, False, {"at": 0, **BRIEF, "refused": True}),
    ("a record without at", TRANSCRIPT, None, False, BRIEF),
    ("a relative event's record", TRANSCRIPT, None, True, {"at": 0, "node": [1, 0], **BRIEF}),
    ("a record's node of one", TRANSCRIPT, None, False, {"at": 0, "node": [1], **BRIEF}),
    ("a settle's record", TRANSCRIPT, None, True, {"at": 0, "event": "timeout", **BRIEF}),
    ("a record's event wait", TRANSCRIPT, None, False, {"at": 0, "event": "wait", **BRIEF}),
    ("a record with a detail", TRANSCRIPT, None, False, {"at": 0, **BRIEF, "render": "x"}),
    ("detail false", TRANSCRIPT, None, False, {"detail": False, **DETAIL}),
    ("a detail with a size", TRANSCRIPT, None, False, {"detail": True, **DETAIL, "size": 0}),
    ("a scenario header", SCENARIO, None, True, HEADER_2),
    ("a transcript header as a scenario's", SCENARIO, None, False, HEADER),
    ("an event", SCENARIO, None, True, {"event": "wait"}),
    ("an event with at", SCENARIO, None, False, {"event": "wait", "at": 0}),
    ("a zoom in a version 1 file", SCENARIO, "event_1", False, {"event": "zoom", "id": 0, "n": 1}),
]
"""Hand-made lines, each a small change from a valid one, and whether the
schema (or one of its `$defs`) takes it."""


@pytest.mark.parametrize(
    ("path", "definition", "valid", "line"),
    [case[1:] for case in CHECKED],
    ids=[f"{case[1].name}: {case[0]}" for case in CHECKED],
)
def test_a_hand_made_line_is_taken_exactly_when_it_is_valid(
    path: Path, definition: str | None, valid: bool, line: Any
) -> None:
    assert validator(path, definition).is_valid(line) == valid
