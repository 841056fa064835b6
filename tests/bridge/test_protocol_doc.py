"""bridge/PROTOCOL.md is enough for an engine author who never opens the
answer schema (issue 37): every field of bridge/answer.schema.json has a
row in the page's tables with an example the schema takes for that field,
no row names a field the schema lacks, every answer the page shows is one
the schema takes, and the whole conversation it shows is, line for line,
what the bridge sends and the model answers (under SPEC, and under
`calls: self`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bridge.formats.profile import SPEC
from bridge.wire.stream import from_model
from model.profile import Profile
from scenarios import format as scenario_format

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "bridge" / "PROTOCOL.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "bridge" / "answer.schema.json").read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]


def either(*kinds: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fields of answers of several kinds: a field two kinds share takes
    either's values (`ready`: `true` in one, `false` in the other)."""
    out: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        for name, field in kind["properties"].items():
            out[name] = {"anyOf": [out[name], field]} if name in out else field
    return out


FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "The conversation": either(*DEFS["answer_to_header"]["oneOf"]),
    "Answers to events": {
        **DEFS["event_fields"]["properties"],
        **DEFS["answer_to_event"]["then"]["properties"],
    },
    "The answer to the final detail request": DEFS["detail_fields"]["properties"],
}  # fmt: skip
"""Each section of the page that has a table of answer fields, and the
fields of the schema it must describe."""


def section(title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", PAGE, re.M | re.S)
    assert found is not None, title
    return found.group(1)


def rows(text: str) -> dict[str, list[str]]:
    """Each table row naming one field, by its field: its cells (a `|` inside
    code written `\\|`, as tables need it)."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        named = re.fullmatch(r"`([a-z_]+)`", cells[0]) if cells else None
        if named:
            assert named.group(1) not in out, f"two rows for {named.group(1)}"
            out[named.group(1)] = [c.replace("\\|", "|") for c in cells]
    return out


def validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of `schema`, its `$ref`s read in the answer schema."""
    return Draft202012Validator({"$defs": DEFS, **schema})


@pytest.mark.parametrize("title", FIELDS)
def test_every_answer_field_has_a_row_with_an_example_the_schema_takes(title: str) -> None:
    table = rows(section(title))
    assert sorted(table) == sorted(FIELDS[title]), title
    for name, cells in table.items():
        example = cells[-1]
        assert example.startswith("`") and example.endswith("`"), (name, example)
        value = json.loads(example[1:-1])
        errors = [e.message for e in validator(FIELDS[title][name]).iter_errors(value)]
        assert errors == [], (name, value, errors)


def blocks(kind: str, text: str = PAGE) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", text, re.M | re.S)


def test_every_answer_shown_is_one_the_schema_takes() -> None:
    answers = [json.loads(block) for block in blocks("json")]
    for block in blocks("text", section("A whole conversation")):
        answers += [json.loads(line[2:]) for line in block.splitlines() if line.startswith("< ")]
    assert len(answers) > 10
    for answer in answers:
        assert [e.message for e in validator(SCHEMA).iter_errors(answer)] == [], answer


def said(block: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (line the bridge writes, answer) pairs of a conversation."""
    lines = [json.loads(line[2:]) for line in block.splitlines()]
    return list(zip(lines[::2], lines[1::2], strict=True))


def test_the_whole_conversation_is_what_the_bridge_sends_and_the_model_answers(
    tmp_path: Path,
) -> None:
    spec, calls_self = blocks("text", section("A whole conversation"))
    (header, ready), *pairs = said(spec)
    assert ready["ready"] is True and ready.get("profile", {}) == {}
    events = [{k: v for k, v in line.items() if k != "at"} for line, _ in pairs[:-1]]
    assert [line.get("at") for line, _ in pairs[:-1]] == list(range(len(events)))
    path = tmp_path / "conversation.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *events]))
    scenario = scenario_format.read(path)
    for shown, profile in ((pairs, SPEC), (said(calls_self), Profile(calls="self"))):
        sent = [e for e in from_model(scenario, profile, strict=False) if e.sent]
        if profile == SPEC:
            assert len(sent) == len(shown)
        by_line = {json.dumps(e.line, sort_keys=True): e.expected for e in sent}
        for line, answer in shown:
            assert by_line.get(json.dumps(line, sort_keys=True)) == answer, line
