"""The scenario format: sized texts, strict validation with file:line in both
versions, JSON's limits refused without a traceback, and the writer's version."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bridge.cli as cli
from impl import protocol
from scenarios.format import (
    FORMAT_1,
    FORMAT_2,
    FORMAT_3,
    Scenario,
    ScenarioError,
    header,
    loads,
    parse,
    read,
    reading_beat,
    sized_text,
    text_of,
    write,
)

CONSTANTS = {
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
}

HEADER_1 = {"format": FORMAT_1, "generator": "test", "seed": 1, "constants": CONSTANTS}
HEADER_2 = {**HEADER_1, "format": FORMAT_2}
HEADER_3 = {**HEADER_1, "format": FORMAT_3}

CAP = 16_777_216
"""The largest size, as scenarios/README.md writes it."""


def lines(*events: object, header: object = HEADER_2) -> list[str]:
    return [json.dumps(header)] + [json.dumps(e) for e in events]


def refused_by(file_lines: list[str]) -> str:
    """The problem `parse` names for the lines (as file f.jsonl)."""
    with pytest.raises(ScenarioError) as caught:
        parse(file_lines, "f.jsonl")
    return str(caught.value)


SIZED = (sized_text, protocol.sized_text)
"""Each reading of scenarios/README.md's sized texts: the format's and the engine's."""


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 17, 100, 513])
@pytest.mark.parametrize("position", [0, 5, 6, 7])
def test_sized_text_is_exactly_size_bytes(size: int, position: int) -> None:
    assert len(sized_text(size, position).encode("utf-8")) == size


def test_sized_text_holds_all_newline_kinds_and_multibyte_characters() -> None:
    text = sized_text(200, 0)
    assert "\r\n" in text and "\r" in text.replace("\r\n", "") and "\n" in text
    assert {"é", "€", "😀"} <= set(text)


@pytest.mark.parametrize("make", SIZED)
@pytest.mark.parametrize(
    ("size", "position", "text"),
    [(10, 0, "chat é€"), (12, 34, "t é€ 😀"), (1, 5, "."), (6, 30, " chat ")],
)
def test_sized_text_gives_the_readme_s_examples(
    make: Callable[[int, int], str], size: int, position: int, text: str
) -> None:
    assert make(size, position) == text


def test_a_good_scenario_parses() -> None:
    scenario = parse(lines({"event": "message", "kind": "user", "size": 10}, {"event": "wait"}))
    assert scenario.constants["node"] == 512
    assert [e["event"] for e in scenario.events] == ["message", "wait"]


@pytest.mark.parametrize("version", [HEADER_1, HEADER_2])
def test_the_reader_takes_both_versions(version: dict[str, Any]) -> None:
    events = [
        {"event": "message", "kind": "note", "text": "x"},
        {"event": "end", "node": [0, 0], "line": "y"},
    ]
    assert parse(lines(*events, header=version)).events == events


BAD_EVENTS: list[tuple[dict[str, Any], str]] = [
    ({"event": "jump"}, "f.jsonl:2: unknown event 'jump'"),
    ({"event": "wait", "x": 1}, "f.jsonl:2: unknown field 'x' in a wait event"),
    ({"event": "start", "node": [0]}, "f.jsonl:2: node must be [level, index]"),
    ({"event": "start", "node": [0, -1]}, "f.jsonl:2: node must be [level, index]"),
    ({"event": "fail", "node": [True, 1]}, "f.jsonl:2: node must be [level, index]"),
    ({"event": "start", "node": [0, 1, 2]}, "f.jsonl:2: node must be [level, index]"),
    ({"event": "message", "kind": "bot", "text": "x"}, "f.jsonl:2: unknown kind 'bot'"),
    ({"event": "fail"}, "f.jsonl:2: a fail event needs 'node'"),
    ({"event": "message", "kind": "user", "size": "9"}, "f.jsonl:2: field 'size'"),
    ({"event": "message", "kind": 7, "size": 9}, "f.jsonl:2: field 'kind'"),
    ({"event": "message", "kind": "user", "size": -1}, "f.jsonl:2: a size is a natural"),
    ({"event": "message", "kind": "user", "size": CAP + 1}, "f.jsonl:2: a size is a natural"),
    ({"event": "end", "node": [0, 0], "size": CAP + 1}, "f.jsonl:2: a size is a natural"),
    ({"event": "zoom", "id": 0}, "f.jsonl:2: a zoom event needs 'n'"),
    ({"event": "zoom", "id": -1, "n": 1}, "f.jsonl:2: a zoom's id is a natural number"),
    ({"event": "zoom", "id": 0, "n": True}, "f.jsonl:2: field 'n' of a zoom event"),
    ({"event": "end", "node": [0, 0], "replies": "x"}, "f.jsonl:2: field 'replies'"),
    ({"event": "end", "node": [0, 0], "replies": []}, "f.jsonl:2: an end's replies hold at"),
    ({"event": "end", "node": [0, 0], "replies": ["x"]}, "f.jsonl:2: a reply is"),
    ({"event": "end", "node": [0, 0], "replies": [{}]}, "f.jsonl:2: a reply is"),
    ({"event": "end", "node": [0, 0], "replies": [{"line": "x"}]}, "f.jsonl:2: a reply is"),
    (
        {"event": "end", "node": [0, 0], "replies": [{"text": "x", "size": 1}]},
        "f.jsonl:2: a reply is",
    ),
    ({"event": "end", "node": [0, 0], "replies": [{"text": 5}]}, "f.jsonl:2: a reply's text"),
    ({"event": "end", "node": [0, 0], "replies": [{"size": -1}]}, "f.jsonl:2: a size is"),
    ({"event": "end", "node": [0, 0], "replies": [{"size": True}]}, "f.jsonl:2: a size is"),
    ({"event": "end", "node": [0, 0], "replies": [{"size": CAP + 1}]}, "f.jsonl:2: a size is"),
    *(
        ({"event": "wait", "refused": marker}, "f.jsonl:2: refused names the rule")
        for marker in (1, True, None, "", ["kind"], {})
    ),
]
"""Events a version 2 file refuses, with the start of the problem named."""


@pytest.mark.parametrize(("event", "problem"), BAD_EVENTS)
def test_a_bad_event_is_refused_with_file_and_line(event: dict[str, Any], problem: str) -> None:
    assert refused_by(lines(event)).startswith(problem)


TEXT = {"text": "a"}
SIZE = {"size": 1}
LINE = {"line": "a"}
REPLIES = {"replies": [{"size": 1}]}
MESSAGE_ONE = 'f.jsonl:2: a message event has exactly one of "text" or "size"'
END_ONE = 'f.jsonl:2: an end event has exactly one of "line" or "size" or "replies"'


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"event": "message", "kind": "user"}, MESSAGE_ONE),
        ({"event": "message", "kind": "user", **TEXT, **SIZE}, MESSAGE_ONE),
        ({"event": "end", "node": [0, 0]}, END_ONE),
        ({"event": "end", "node": [0, 0], **LINE, **SIZE}, END_ONE),
        ({"event": "end", "node": [0, 0], **LINE, **REPLIES}, END_ONE),
        ({"event": "end", "node": [0, 0], **SIZE, **REPLIES}, END_ONE),
        ({"event": "end", "node": [0, 0], **LINE, **SIZE, **REPLIES}, END_ONE),
    ],
)
def test_a_text_is_given_exactly_one_way(event: dict[str, Any], problem: str) -> None:
    assert refused_by(lines(event)) == problem


def test_a_version_1_end_is_told_only_of_line_and_size() -> None:
    said = refused_by(lines({"event": "end", "node": [0, 0]}, header=HEADER_1))
    assert said == 'f.jsonl:2: an end event has exactly one of "line" or "size"'


VERSION_2_ONLY: list[tuple[dict[str, Any], str]] = [
    ({"event": "zoom", "id": 0, "n": 1}, "f.jsonl:2: unknown event 'zoom'"),
    (
        {"event": "end", "node": [0, 0], **REPLIES},
        "f.jsonl:2: unknown field 'replies' in an end event",
    ),
    (
        {"event": "wait", "refused": "one_wait"},
        "f.jsonl:2: unknown field 'refused' in a wait event",
    ),
    (
        {"event": "message", "kind": "bot", "text": "hi", "refused": "kind"},
        "f.jsonl:2: unknown field 'refused' in a message event",
    ),
]


VERSION_3_ONLY: list[tuple[dict[str, Any], str]] = [
    ({"event": "start", "candidate": 0}, "f.jsonl:2: unknown field 'candidate' in a start event"),
    ({"event": "end", "running": 2, **SIZE}, "f.jsonl:2: unknown field 'running' in an end event"),
    ({"event": "fail", "running": 1}, "f.jsonl:2: unknown field 'running' in a fail event"),
    (
        {"event": "settle", "unsettled": "timeout"},
        "f.jsonl:2: unknown field 'unsettled' in a settle event",
    ),
    (
        {"event": "end", "running": 0, **REPLIES, "refused": "end_needs_running"},
        "f.jsonl:2: unknown field 'running' in an end event",
    ),
    (
        {"event": "message", "kind": "work", "size": 3, "untaken": "taken"},
        "f.jsonl:2: unknown field 'untaken' in a message event",
    ),
]
"""Relative events: what only version 3 has."""

BAD_RELATIVE: list[tuple[dict[str, Any], str]] = [
    ({"event": "start"}, "f.jsonl:2: a start event needs 'node'"),
    ({"event": "fail", "node": [0, 0], "running": 0}, "f.jsonl:2: a fail event has one of"),
    ({"event": "start", "node": [0, 0], "candidate": 0}, "f.jsonl:2: a start event has one of"),
    ({"event": "start", "candidate": -1}, "f.jsonl:2: a start event's candidate is a natural"),
    ({"event": "end", "running": True, **LINE}, "f.jsonl:2: field 'running' of an end event"),
    ({"event": "fail", "running": "0"}, "f.jsonl:2: field 'running' of a fail event"),
    ({"event": "start", "running": 0}, "f.jsonl:2: unknown field 'running' in a start event"),
    ({"event": "fail", "candidate": 0}, "f.jsonl:2: unknown field 'candidate' in a fail event"),
    ({"event": "end", "running": 0}, END_ONE),
    ({"event": "settle", "unsettled": "wait"}, 'f.jsonl:2: a settle\'s unsettled is "timeout"'),
    ({"event": "settle", "unsettled": 1}, "f.jsonl:2: field 'unsettled' of a settle event"),
    ({"event": "timeout", "unsettled": "timeout"}, "f.jsonl:2: unknown field 'unsettled'"),
    ({"event": "timeout", "unwaited": "sent"}, 'f.jsonl:2: a timeout\'s unwaited is "unsent"'),
    (
        {"event": "message", "kind": "work", "size": 3, "untaken": "user"},
        'f.jsonl:2: a message\'s untaken is "taken"',
    ),
    ({"event": "message", "kind": "work", "size": 3, "untaken": 0}, "f.jsonl:2: field 'untaken'"),
    ({"event": "message", "untaken": "taken", "size": 3}, "f.jsonl:2: unknown kind None"),
]
"""Relative events a version 3 file refuses."""


@pytest.mark.parametrize(("event", "problem"), VERSION_3_ONLY)
def test_only_a_version_3_file_has_relative_events(event: dict[str, Any], problem: str) -> None:
    assert refused_by(lines(event, header=HEADER_1)).startswith(problem)
    assert refused_by(lines(event, header=HEADER_2)).startswith(problem)
    assert parse(lines(event, header=HEADER_3)).events == [event]


@pytest.mark.parametrize(("event", "problem"), BAD_RELATIVE)
def test_a_bad_relative_event_is_refused(event: dict[str, Any], problem: str) -> None:
    assert refused_by(lines(event, header=HEADER_3)).startswith(problem)


@pytest.mark.parametrize(("event", "problem"), VERSION_2_ONLY)
def test_a_version_1_file_refuses_what_only_version_2_has(
    event: dict[str, Any], problem: str
) -> None:
    assert refused_by(lines(event, header=HEADER_1)).startswith(problem)
    assert parse(lines(event, header=HEADER_2)).events == [event]


def test_an_unknown_kind_needs_a_refused_marker() -> None:
    marked = {"event": "message", "kind": "bot", "text": "hi", "refused": "kind"}
    assert parse(lines(marked)).events == [marked]
    unmarked = {k: v for k, v in marked.items() if k != "refused"}
    assert refused_by(lines(unmarked)) == "f.jsonl:2: unknown kind 'bot'"


def test_replies_are_read_as_given_and_by_size_at_their_positions() -> None:
    replies = [{"text": ""}, {"size": 0}, {"size": 5}, {"text": "a\u2028b"}]
    events = [{"event": "wait"}, {"event": "end", "node": [0, 0], "replies": replies}]
    read_back = parse(lines(*events)).events[1]["replies"]
    assert read_back == replies
    # Reply k of the end at position 1 is sized_text(size, 1 + k): reply 2 starts at
    # FILLER's 't' (character 3); "t é" is 4 bytes, "€" does not fit, a dot pads.
    texts = [text_of(reply, "text", 1 + k) for k, reply in enumerate(read_back)]
    assert texts == ["", "", "t é.", "a\u2028b"]


def test_the_size_cap_is_inclusive() -> None:
    events = [
        {"event": "message", "kind": "user", "size": CAP},
        {"event": "end", "node": [0, 0], "size": CAP},
        {"event": "end", "node": [0, 0], "replies": [{"size": CAP}]},
    ]
    assert parse(lines(*events)).events == events


def test_a_bad_header_is_refused() -> None:
    constants = dict(CONSTANTS)
    del constants["jobs"]
    with pytest.raises(ScenarioError, match="f.jsonl:1: constant 'jobs' is missing"):
        parse(lines(header={**HEADER_2, "constants": constants}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:1: unknown header field 'x'"):
        parse(lines(header={**HEADER_2, "x": 1}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:1: format must be"):
        parse(lines(header={**HEADER_2, "format": "optchat-scenario/4"}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:1: constant 'node' must be a natural"):
        parse(lines(header={**HEADER_2, "constants": {**CONSTANTS, "node": 1.0}}), "f.jsonl")
    with pytest.raises(ScenarioError, match="f.jsonl:3: not JSON"):
        parse([*lines({"event": "wait"}), "{oops"], "f.jsonl")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"event": "wait"} {"event": "wait"}', "not JSON: Extra data (column 19)"),
        ('{"event": "wait"}x', "not JSON: Extra data (column 18)"),
        ('{"event": "wait"', "not JSON: Expecting ',' delimiter (column 17)"),
        ("", "not JSON: Expecting value (column 1)"),
        ("  ", "not JSON: Expecting value (column 3)"),
    ],
)
def test_a_text_that_is_not_one_json_value_is_refused(text: str, said: str) -> None:
    with pytest.raises(ValueError) as caught:
        loads(text)
    assert str(caught.value) == said


def test_one_json_value_is_read_with_whitespace_around_it_or_none() -> None:
    value = {"a": [1, 2.5, None, True], "b": "\u2028"}
    for text in (
        '{"a": [1, 2.5, null, true], "b": "\\u2028"}',
        ' \t{"a":[1,2.5,null,true],"b":"\u2028"}\r\n ',
    ):
        assert loads(text) == value


@pytest.mark.parametrize("notes", [5, "text", ["a"], None, True])
def test_notes_that_are_not_an_object_are_refused(notes: object) -> None:
    said = refused_by(lines(header={**HEADER_2, "notes": notes}))
    assert said == f"f.jsonl:1: notes must be a JSON object, not {notes!r}"


WAIT = b'{"event": "wait"}'
HEAD = json.dumps(HEADER_2).encode()

BAD_FILES: dict[str, tuple[bytes, str]] = {
    "NaN": (HEAD + b'\n{"event": "message", "kind": "user", "size": NaN}\n', ":2: NaN is not"),
    "Infinity": (HEAD + b'\n{"event": "zoom", "id": Infinity, "n": 1}\n', ":2: Infinity is not"),
    "-Infinity": (HEAD + b'\n{"event": "zoom", "id": 0, "n": -Infinity}\n', ":2: -Infinity is"),
    "1e400": (
        HEAD + b"\n" + WAIT + b'\n{"event": "zoom", "id": 1e400, "n": 1}\n',
        ":3: the number 1e400 is too large (it would read as infinity)",
    ),
    "1e400 in the header": (
        json.dumps(HEADER_2).replace('"retry": 10', '"retry": 1e400').encode() + b"\n",
        ":1: the number 1e400 is too large",
    ),
    "notes not an object": (
        json.dumps({**HEADER_2, "notes": [1]}).encode() + b"\n" + WAIT + b"\n",
        ":1: notes must be a JSON object, not [1]",
    ),
    "a size of 10^12": (
        HEAD + b"\n" + WAIT + b'\n{"event": "message", "kind": "user", "size": 1000000000000}\n',
        f":3: a size is a natural number of at most {CAP}, not 1000000000000",
    ),
    "5,000 digits": (
        HEAD + b"\n" + WAIT + b'\n{"event": "zoom", "id": ' + b"7" * 5_000 + b', "n": 1}\n',
        ":3: a number with too many digits",
    ),
    "200,000 deep": (
        HEAD + b"\n" + b"[" * 200_000 + b"]" * 200_000 + b"\n",
        ":2: nested too deeply",
    ),
    "not UTF-8 on line 3": (
        HEAD + b"\n" + WAIT + b'\n{"event": "message", "kind": "user", "text": "\xff"}\n',
        ":3: not UTF-8",
    ),
    "empty": (b"", ":1: empty file: no header"),
    "an empty line": (HEAD + b"\n\n" + WAIT + b"\n", ":2: empty line"),
}
"""Files `read` refuses, each with the end of the problem it names after the file's name."""


def bad_path(tmp_path: Path, case: str) -> tuple[Path, str]:
    """The file of a bad case (a directory and a missing file included) and
    the problem named, `file:line: problem` or `file: problem`."""
    if case == "a directory":
        return tmp_path, f"{tmp_path}: is a directory"
    if case == "a missing file":
        return tmp_path / "nope.jsonl", f"{tmp_path / 'nope.jsonl'}: cannot be read"
    path = tmp_path / "bad.jsonl"
    data, problem = BAD_FILES[case]
    path.write_bytes(data)
    return path, f"{path}{problem}"


CASES = [*BAD_FILES, "a directory", "a missing file"]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_file_is_refused_with_file_and_line(tmp_path: Path, case: str) -> None:
    path, problem = bad_path(tmp_path, case)
    with pytest.raises(ScenarioError) as caught:
        read(path)
    said = str(caught.value)
    assert said.startswith(problem)
    assert re.fullmatch(rf"{re.escape(str(path))}(:\d+)?: [^\n]+", said)
    assert "4300" not in said, "Python's own words for a long integer"


@pytest.mark.parametrize("case", CASES)
def test_replaying_a_bad_file_says_file_and_line_and_exits_2(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, problem = bad_path(tmp_path, case)
    assert cli.main(["replay", str(path), "--engine", "model"]) == 2
    assert problem in capsys.readouterr().err


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_a_line_separator_inside_a_string_is_part_of_its_line(
    tmp_path: Path, separator: str
) -> None:
    event = {"event": "message", "kind": "user", "text": f"a{separator}b"}
    path = tmp_path / "f.jsonl"
    path.write_bytes(f"{json.dumps(HEADER_2)}\n{json.dumps(event, ensure_ascii=False)}\n".encode())
    assert separator.encode() in path.read_bytes()
    assert read(path).events == [event]


def test_a_lone_carriage_return_between_tokens_is_whitespace(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(HEAD + b'\n{"event":\r"wait"}\r\n')
    assert read(path).events == [{"event": "wait"}]


def scenario(*events: dict[str, Any]) -> Scenario:
    return Scenario(constants=CONSTANTS, events=list(events), generator="test", seed=1)


@pytest.mark.parametrize(
    ("events", "version"),
    [
        ([], FORMAT_1),
        ([{"event": "message", "kind": "user", "size": 3}, {"event": "wait"}], FORMAT_1),
        ([{"event": "end", "node": [0, 0], "line": "x"}], FORMAT_1),
        ([{"event": "zoom", "id": 0, "n": 1}], FORMAT_2),
        ([{"event": "end", "node": [0, 0], "replies": [{"size": 0}]}], FORMAT_2),
        ([{"event": "wait"}, {"event": "settle", "refused": "settle_needs_wait"}], FORMAT_2),
        ([{"event": "message", "kind": "user", "text": "a\ud800", "refused": "utf8"}], FORMAT_2),
        ([{"event": "start", "candidate": 3}], FORMAT_3),
        ([{"event": "wait"}, {"event": "settle", "unsettled": "timeout"}], FORMAT_3),
        ([{"event": "zoom", "id": 0, "n": 1}, {"event": "fail", "running": 0}], FORMAT_3),
        ([{"event": "end", "running": 0, "replies": [{"size": 0}]}], FORMAT_3),
    ],
)
def test_the_writer_writes_the_lowest_version_that_holds_the_events(
    tmp_path: Path, events: list[dict[str, Any]], version: str
) -> None:
    written = scenario(*events)
    assert header(written)["format"] == version
    path = tmp_path / "f.jsonl"
    write(written, path)
    assert json.loads(path.read_bytes().split(b"\n")[0])["format"] == version
    assert read(path).events == events


def test_reading_a_large_file_says_so_on_stderr_at_most_every_10_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    times = iter([100.0, 103.0, 110.0, 112.0, 119.9, 120.7, 121.0])
    beat = reading_beat("big.jsonl", clock=lambda: next(times))
    for lines_read in (1024, 2048, 3072, 4096, 5120, 6144):
        beat(lines_read)
    assert capsys.readouterr().err == (
        "  ... reading big.jsonl: 2048 lines (10 s)\n  ... reading big.jsonl: 5120 lines (21 s)\n"
    )


def test_parse_calls_its_beat_every_1024_lines() -> None:
    called: list[int] = []
    events = [{"event": "wait"}] * 3000
    assert len(parse(lines(*events), beat=called.append).events) == 3000
    assert called == [1024, 2048]
