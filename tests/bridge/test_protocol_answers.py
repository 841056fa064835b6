"""What bridge/PROTOCOL.md's "Questions outside authors asked" tells an
engine author about two things SPEC leaves them to work out (issue 43),
held to what the bridge sends and the model answers:

- a `tool` message's text is taken as it is: the bridge sends the logged
  text and the model does not clip it, even past `tool_cap`; the corpus's
  tool texts are all within their scenario's `tool_cap`;
- at a message whose chat-view batch merged, `cmerges` is the compaction
  view's further batch only (merged into the answer's `view` in order it
  gives its `cview`; never one of `merges`), and the compaction view's
  shrinking flag is that batch's own: set exactly when the view stopped
  above CFLOOR (at `at` 5 of the page's whole conversation, where it
  merged nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge.formats.profile import SPEC
from bridge.wire.inprocess import ModelEngine
from bridge.wire.stream import from_model
from scenarios import format as scenario_format

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "bridge" / "PROTOCOL.md").read_text(encoding="utf-8")
CONSTANTS = {"node": 1024, "ceiling": 8000, "floor": 4000, "cceiling": 6000, "cfloor": 3000}
CONSTANTS |= {"jobs": 2, "ahead": 8, "tries": 4, "failures": 2, "retry": 10}
CONSTANTS |= {"settle_timeout": 20, "tool_cap": 100}


def scenario_of(tmp_path: Path, constants: dict[str, Any], events: list[dict[str, Any]]) -> Any:
    header = {"format": "optchat-scenario/2", "generator": "test", "seed": 0}
    lines = [{**header, "constants": constants, "notes": {}}, *events]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return scenario_format.read(path)


def test_the_page_says_a_tool_text_is_taken_as_it_is() -> None:
    assert "**Do I clip a `tool` message's text?** No: take every `message` text" in PAGE


def test_a_tool_text_past_tool_cap_is_sent_and_answered_whole(tmp_path: Path) -> None:
    text = "x" * 300  # three times tool_cap
    scenario = scenario_of(
        tmp_path, CONSTANTS, [{"event": "message", "kind": "tool", "text": text}]
    )
    (sent, *_) = list(from_model(scenario, SPEC, strict=False))
    assert sent.line["text"] == text
    assert sent.expected["size"] == len(f"tool: {text}".encode())  # the leaf's line, whole


def test_the_corpus_tool_texts_are_within_tool_cap() -> None:
    seen = 0
    for path in sorted((ROOT / "scenarios" / "corpus").glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            cap = json.loads(lines.readline())["constants"]["tool_cap"]
            for line in lines:
                if '"tool"' in line and (event := json.loads(line)).get("kind") == "tool":
                    seen += 1
                    assert (len(event["text"]) if "text" in event else event["size"]) <= cap
    assert seen > 1000


def merged(view: list[list[int]], parents: list[list[int]]) -> list[list[int]]:
    """`view` with each parent, in order, put in place of its two halves."""
    out = [list(line) for line in view]
    for level, index in parents:
        halves = [[level - 1, 2 * index], [level - 1, 2 * index + 1]]
        at = out.index(halves[0])
        assert out[at + 1] == halves[1], (parents, out)
        out[at : at + 2] = [[level, index]]
    return out


def test_cmerges_is_the_compaction_view_s_further_batch_and_its_shrinking_its_own() -> None:
    scenario = scenario_format.read(ROOT / "scenarios" / "corpus" / "zoom_0.jsonl")
    cfloor = scenario.constants["cfloor"]
    model = ModelEngine(SPEC)
    model.start(scenario)
    further = shrinking = 0
    for exchange in from_model(scenario, SPEC, strict=False):
        answer = model.answer(exchange.line) if exchange.sent else None
        if answer is None or not answer.get("merges"):
            continue
        cmerges = answer["cmerges"]
        assert merged(answer["view"], cmerges) == answer["cview"]
        assert not {tuple(p) for p in cmerges} & {tuple(p) for p in answer["merges"]}
        compaction = model.state.compaction
        assert compaction.shrinking == (compaction.size > cfloor)
        further += bool(cmerges)
        shrinking += compaction.shrinking
    assert further > 0 and shrinking > 0


def test_at_5_of_the_whole_conversation_the_compaction_view_is_left_shrinking(
    tmp_path: Path,
) -> None:
    block = PAGE[PAGE.index("## A whole conversation") :]
    lines = [
        json.loads(line[2:])
        for line in block.split("```text", 1)[1].split("```")[0].splitlines()
        if line
    ]
    header, *sent = lines[::2]
    events = [{k: v for k, v in line.items() if k != "at"} for line in sent[:6]]
    model = ModelEngine(SPEC)
    model.start(scenario_of(tmp_path, header["constants"], events))
    for at, event in enumerate(events):
        answer = model.answer({**event, "at": at})
    assert answer["merges"] == [[1, 0]] and answer["cmerges"] == []
    compaction = model.state.compaction
    assert compaction.size > header["constants"]["cfloor"] and compaction.shrinking
    assert "at `at` 5 of" in PAGE
