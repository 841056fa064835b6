"""The scenario format: sized texts and strict validation with file:line."""

from __future__ import annotations

import json

import pytest

from scenarios.format import FORMAT, ScenarioError, parse, sized_text

HEADER = {
    "format": FORMAT,
    "generator": "test",
    "seed": 1,
    "constants": {
        "node": 512,
        "ceiling": 128000,
        "floor": 64000,
        "cceiling": 32000,
        "cfloor": 16000,
        "jobs": 8,
        "ahead": 8,
        "tries": 5,
        "failures": 3,
        "retry": 10,
        "settle_timeout": 20,
        "tool_cap": 30000,
    },
}


def lines(*events: object, header: object = HEADER) -> list[str]:
    return [json.dumps(header)] + [json.dumps(e) for e in events]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 17, 100, 513])
@pytest.mark.parametrize("position", [0, 5, 6, 7])
def test_sized_text_is_exactly_size_bytes(size: int, position: int) -> None:
    assert len(sized_text(size, position).encode("utf-8")) == size


def test_sized_text_holds_all_newline_kinds_and_multibyte_characters() -> None:
    text = sized_text(200, 0)
    assert "\r\n" in text and "\r" in text.replace("\r\n", "") and "\n" in text
    assert {"é", "€", "😀"} <= set(text)


def test_a_good_scenario_parses() -> None:
    scenario = parse(lines({"event": "message", "kind": "user", "size": 10}, {"event": "wait"}))
    assert scenario.constants["node"] == 512
    assert [e["event"] for e in scenario.events] == ["message", "wait"]


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"event": "jump"}, "f.jsonl:2: unknown event 'jump'"),
        ({"event": "wait", "x": 1}, "f.jsonl:2: unknown field 'x' in a wait event"),
        ({"event": "start", "node": [0]}, "f.jsonl:2: node must be [level, index]"),
        ({"event": "start", "node": [0, -1]}, "f.jsonl:2: node must be [level, index]"),
        ({"event": "end", "node": [0, 1]}, 'f.jsonl:2: an end event has either "line" or "size"'),
        ({"event": "message", "kind": "bot", "text": "x"}, "f.jsonl:2: unknown kind 'bot'"),
        ({"event": "message", "kind": "user"}, 'f.jsonl:2: a message event has either "text"'),
        ({"event": "fail"}, "f.jsonl:2: a fail event needs 'node'"),
        ({"event": "message", "kind": "user", "size": "9"}, "f.jsonl:2: field 'size'"),
        ({"event": "fail", "node": [True, 1]}, "f.jsonl:2: node must be [level, index]"),
    ],
)
def test_a_bad_event_is_refused_with_file_and_line(event: dict, problem: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse(lines(event), "f.jsonl")
    assert str(caught.value).startswith(problem)


def test_a_bad_header_is_refused() -> None:
    constants = dict(HEADER["constants"])
    del constants["jobs"]
    with pytest.raises(ScenarioError, match="f.jsonl:1: constant 'jobs' is missing"):
        parse(lines(header={**HEADER, "constants": constants}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:1: unknown header field 'x'"):
        parse(lines(header={**HEADER, "x": 1}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:3: not JSON"):
        parse([*lines({"event": "wait"}), "{oops"], "f.jsonl")
