"""The scenario generator: deterministic, legal for the model, truthful notes,
the late family's shrinking views, turns that wait, settle and time out; the
conformance families (refusals, the line chooser, zoom, the empty chat); and
the committed corpus, which is what the generator writes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bridge.formats.profile import SPEC
from bridge.wire.inprocess import model_event
from bridge.wire.stream import Exchange, from_model, resolved
from model import bits, machine
from model.constants import KINDS, Constants
from model.errors import Refused
from model.node import Node
from scenarios import format as scenario_format
from scenarios import generate
from scenarios.format import FILLER, FORMAT_1, Scenario, sized_text
from tests.scenarios.spec import refusal_rules
from tests.test_white_space import ASCII, JAVASCRIPT, UNICODE

SCENARIOS = Path(generate.__file__).parent
CORPUS = SCENARIOS / "corpus"

SMALL: dict[str, Callable[[], Scenario]] = {
    "steady": lambda: generate.steady(60),
    "deep_6000": lambda: generate.deep(6_000, 3_000, 100),
    "deep_2000": lambda: generate.deep(2_000, 1_000, 100),
    "late": lambda: generate.late(16_000, 8_000, 300),
    "random_04": lambda: generate.randomized(4, 100),
    "random_07": lambda: generate.randomized(7, 100),
    "random_23": lambda: generate.randomized(23, 100),
}
"""Each chat family with the message count cut down (the corpus budgets kept)."""

CONFORMANCE: dict[str, Callable[[], Scenario]] = {
    "refused_jobs_bound_0": lambda: generate.refusal("jobs_bound", 0),
    "refused_kind_1": lambda: generate.refusal("kind", 1),
    "zoom_2": lambda: generate.zooms(2),
    "chooser_2": lambda: generate.chooser(2),
}
"""A few scenarios of the conformance families, as in the corpus."""


@pytest.fixture(scope="module")
def small() -> dict[str, Scenario]:
    return {name: make() for name, make in {**SMALL, **CONFORMANCE}.items()}


@cache
def committed(name: str) -> Scenario:
    """A scenario of the committed corpus."""
    return scenario_format.read(CORPUS / f"{name}.jsonl")


def names(prefix: str) -> list[str]:
    return sorted(name for name in generate.corpus() if name.startswith(prefix))


def node_of(event: dict[str, Any]) -> Node:
    """The model's node for an event's `[level, index]`."""
    return Node(event["node"][0], bits.from_int(event["node"][1]))


@dataclass(frozen=True)
class Replayed:
    """One event replayed: the event, its position, the states around it."""

    event: dict[str, Any]
    position: int
    before: machine.State
    after: machine.State


def replay(scenario: Scenario) -> Iterator[Replayed]:
    """Replay the scenario through the model, from its written lines. An
    event marked refused must be refused with its rule and changes nothing;
    any other refusal raises `Refused` and fails the test. A relative event
    is replayed as the node it stands for under SPEC, and always names one."""
    parsed = scenario_format.parse(scenario_format.dump(scenario))
    state = machine.initial(Constants(**parsed.constants))
    for position, given in enumerate(parsed.events):
        before = state
        event = resolved(given, state)
        assert event is not None, f"event {position} has no call to act on"
        if "refused" in event:
            with pytest.raises(Refused) as refused:
                machine.step(state, model_event(event, position))
            assert refused.value.rule == event["refused"]
            state = machine.refuse(state)
        else:
            state = machine.step(state, model_event(event, position))
        yield Replayed(event, position, before, state)


@pytest.mark.parametrize("name", SMALL)
def test_the_same_seed_gives_the_same_bytes(name: str, small: dict[str, Scenario]) -> None:
    assert list(scenario_format.dump(SMALL[name]())) == list(scenario_format.dump(small[name]))


def test_another_seed_gives_another_chat() -> None:
    one, two = generate.steady(40, seed=1), generate.steady(40, seed=2)
    assert one.events != two.events


@pytest.mark.parametrize("name", [*SMALL, *CONFORMANCE])
def test_every_event_parses_and_is_legal_and_the_notes_are_true(
    name: str, small: dict[str, Scenario]
) -> None:
    scenario = small[name]
    merged = cmerged = shrinking = without_merge = ended = level = lines = caps = 0
    for step in replay(scenario):
        if "refused" in step.event:
            continue
        if step.event["event"] == "fail":
            caps += machine.text(step.after, node_of(step.event)) is not None
        if step.event["event"] != "message":
            continue
        merged += bool(machine.merges(step.after))
        cmerged += bool(step.after.compaction.merges)
        if machine.shrinking(step.after):
            shrinking += 1
            without_merge += not machine.merges(step.after)
        ended += machine.shrinking(step.before) and not machine.shrinking(step.after)
        level = max(level, *(line.level for line in machine.view(step.after)))
        lines = max(lines, len(machine.view(step.after)))
    notes = scenario.notes
    assert set(notes["events"]) <= set(scenario_format.EVENTS)
    counted = {event: n for event, n in notes["events"].items() if n}
    assert counted == Counter(event["event"] for event in scenario.events)
    kinds = Counter(
        event["kind"]
        for event in scenario.events
        if event["event"] == "message" and "refused" not in event
    )
    assert notes["kinds"] == {k: kinds[k] for k in KINDS}
    assert (notes["batches_merged"], notes["shrinking_messages"]) == (merged, shrinking)
    assert (notes["shrinking_without_merge"], notes["shrinking_ended"]) == (without_merge, ended)
    assert (notes["max_view_level"], notes["max_view_lines"]) == (level, lines)
    assert (notes["compaction_batches_merged"], notes["failure_caps"]) == (cmerged, caps)


def test_the_written_events_rebuild_the_generator_s_state() -> None:
    """Sized texts are made at the right positions: replaying the file gives
    the very state (log texts, node lines, views, queue) the generator had."""
    run = generate.Run(generate.DEFAULTS, seed=7)
    late = generate.Late(run.rng, fail_permille=200, stuck_permille=50, fast=24)
    generate.talk(run, generate.LATE_CHAT, 80, late)
    scenario = run.scenario({})
    state = machine.initial(Constants(**scenario.constants))
    for position, event in enumerate(scenario.events):
        state = machine.step(state, model_event(resolved(event, state) or {}, position))
    assert state == run.state
    assert {"start", "end", "fail", "retry"} <= {event["event"] for event in scenario.events}


@pytest.mark.parametrize("name", SMALL)
def test_messages_and_lines_are_written_by_size(name: str, small: dict[str, Scenario]) -> None:
    node = small[name].constants["node"]
    for event in small[name].events:
        assert "text" not in event and "line" not in event
        if event["event"] == "end":
            assert 1 <= event["size"] <= node


@pytest.mark.parametrize("name", SMALL)
def test_turns_wait_settle_and_time_out(name: str, small: dict[str, Scenario]) -> None:
    waiting = False
    seen: set[str] = set()
    for event in small[name].events:
        kind = event["event"]
        if kind in ("wait", "settle", "timeout"):
            seen.add(kind)
            # A wait only when no turn waits; it ends by a settle or a timeout.
            assert waiting == (kind != "wait")
            waiting = kind == "wait"
    assert seen == {"wait", "settle", "timeout"}


def test_the_late_family_stops_above_floor_and_later_reaches_it(
    small: dict[str, Scenario],
) -> None:
    floor = small["late"].constants["floor"]
    stalled: list[int] = []
    finished: list[int] = []
    capped: list[int] = []
    for step in replay(small["late"]):
        if (
            step.event["event"] == "fail"
            and machine.text(step.after, node_of(step.event)) is not None
        ):
            capped.append(step.position)
        if step.event["event"] != "message":
            continue
        if machine.shrinking(step.after) and not machine.merges(step.after):
            # A batch ran and merged nothing: its parents are not built yet.
            assert machine.size(step.after) > floor
            stalled.append(step.position)
        if machine.shrinking(step.before) and not machine.shrinking(step.after):
            assert machine.size(step.after) <= floor
            finished.append(step.position)
    assert stalled and finished and max(finished) > min(stalled)
    assert capped, "no node reached the FAILURES cap"


REGENERATED = (
    "random_00",
    "flat_0",
    "chooser_2",
    "zoom_2",
    "refused_kind_0",
    "refused_queue_order_1",
    "refused_zoom_2",
    "both_kind_utf8",
    "both_need_first_merge_needs_halves",
    "empty_chat",
)
"""A sample of the committed corpus, small scenarios of every family that
takes a second or less to make."""


@pytest.mark.parametrize("name", REGENERATED)
def test_the_committed_corpus_is_what_the_generator_writes(tmp_path: Path, name: str) -> None:
    assert generate.main(["--out", str(tmp_path), "--only", name]) == 0
    assert (tmp_path / f"{name}.jsonl").read_bytes() == (CORPUS / f"{name}.jsonl").read_bytes()


def test_the_flat_family_gives_its_texts_in_full_with_no_line_break() -> None:
    scenario = generate.flat_texts(1)
    given = [
        (position, event.get("text", event.get("line")))
        for position, event in enumerate(scenario.events)
        if event["event"] in ("message", "end")
    ]
    assert len(given) > 200
    for position, text in given:
        assert isinstance(text, str) and "\r" not in text and "\n" not in text
        size = len(text.encode("utf-8"))
        breaks = sized_text(size, position)
        assert "\n" in breaks or "\r" in breaks or size < len(FILLER.encode("utf-8"))
        assert text == "".join(" " if c in "\r\n" else c for c in breaks)


MESSAGES = {"chooser": 300, "zoom": 150, "empty": 0}
"""The messages of each scenario of these families (scenarios/README.md)."""


def test_the_corpus_holds_every_scenario_and_each_parses() -> None:
    files = sorted(path.stem for path in CORPUS.glob("*.jsonl"))
    assert files == sorted(generate.corpus())
    for path in CORPUS.glob("*.jsonl"):
        scenario = scenario_format.read(path)
        assert scenario.generator == generate.GENERATOR
        family, *numbers = path.stem.split("_")
        assert scenario.notes["family"] == family
        count = sum(event["event"] == "message" for event in scenario.events)
        if family in ("steady", "deep", "late"):
            # steady_3000, deep_4000_6000, late_1500: the message count, then the ceiling.
            assert count == int(numbers[0])
            if len(numbers) > 1:
                assert scenario.constants["ceiling"] == int(numbers[1])
        elif family in MESSAGES:
            assert count == MESSAGES[family]


def test_the_refusal_family_breaks_every_rule_of_spec_4_1_but_self_starts() -> None:
    """`self_starts` needs `calls: self`, under which no start is sent."""
    wanted = set(refusal_rules()) - {"self_starts"}
    assert set(generate.RULES) == wanted
    assert names("refused_") == sorted(f"refused_{rule}_{k}" for rule in wanted for k in range(3))


def expected_refusals(exchanges: list[Exchange]) -> list[str | None]:
    """The rule each event's expected answer names, None where it is accepted."""
    return [x.expected.get("refused") for x in exchanges if x.position is not None]


@pytest.mark.parametrize("name", names("refused_"))
def test_a_refusal_scenario_breaks_its_rule_three_times_and_the_model_agrees(name: str) -> None:
    scenario = committed(name)
    rule = name.removeprefix("refused_").rsplit("_", 1)[0]
    marks = [event["refused"] for event in scenario.events if "refused" in event]
    assert len(marks) >= 3 and set(marks) == {rule}
    assert scenario.notes["refusals"] == len(marks)
    # strict: ScenarioError on a refusal the file does not mark, or with another rule.
    exchanges = list(from_model(scenario, SPEC, strict=True))
    assert expected_refusals(exchanges) == [event.get("refused") for event in scenario.events]


def stop(replies: list[bytes], node: int, tries: int) -> tuple[str, int]:
    """Why SPEC 5's reading of an end's replies (stripped, as UTF-8) stops,
    and at which reply: "fit", "empty", "not shorter", or "out" when the
    tries or the replies run out first."""
    best: int | None = None
    for k, reply in enumerate(replies[:tries]):
        if not reply:
            return "empty", k
        if len(reply) <= node:
            return "fit", k
        if best is not None and len(reply) >= best:
            return "not shorter", k
        best = len(reply)
    return "out", min(tries, len(replies))


def reply_text(reply: dict[str, Any], position: int) -> str:
    return reply["text"] if "text" in reply else sized_text(reply["size"], position)


@pytest.mark.parametrize("name", names("chooser_"))
def test_the_chooser_family_reaches_every_way_the_tries_end(name: str) -> None:
    scenario = committed(name)
    node, tries = scenario.constants["node"], scenario.constants["tries"]
    ends = [(at, e) for at, e in enumerate(scenario.events) if "replies" in e]
    assert ends and all(set(e) == {"event", "running", "replies"} for _, e in ends)
    counts = [len(e["replies"]) for _, e in ends]
    assert max(counts) == tries + 2, "replies past the tries, never read"
    stops: set[str] = set()
    same_length = 0
    space = "".join(UNICODE)
    for at, e in ends:
        texts = [reply_text(r, at + k).strip(space).encode() for k, r in enumerate(e["replies"])]
        why, k = stop(texts, node, tries)
        stops.add(why)
        # The follow-up exactly as long as the reply before it, which was the best so far.
        same_length += why == "not shorter" and len(texts[k]) == len(texts[k - 1])
    assert stops == {"fit", "empty", "not shorter", "out"}
    assert same_length > 0
    assert any(0 in (r.get("size") for r in e["replies"]) for _, e in ends)


@pytest.mark.parametrize("name", names("chooser_"))
def test_the_chooser_family_ends_texts_in_every_character_the_sets_disagree_on(
    name: str,
) -> None:
    """Replies, and the given lines of one end in eight, end in each
    character where SPEC 3.6's named sets differ (and in U+001F, which none
    holds and Python's `str.strip` strips), so every engine's stripping is
    checked on them."""
    events = list(enumerate(committed(name).events))
    lines = {e["line"][-1] for at, e in events if e["event"] == "end" and "line" in e}
    assert all(at % 8 == 5 for at, e in events if e["event"] == "end" and "line" in e)
    replies = {r["text"][-1] for _, e in events for r in e.get("replies", ()) if r.get("text")}
    sets = (set(UNICODE), set(JAVASCRIPT), set(ASCII))
    differ = {c for a in sets for b in sets for c in a - b}
    assert len(differ) == 21 and {"\x85", "\ufeff", "\u1680", "\u3000"} <= differ
    assert lines == replies == set(generate.SPACE_ENDS) == differ | {"\x1f"}


@pytest.mark.parametrize("name", names("zoom_"))
def test_the_zoom_family_zooms_and_is_refused_as_the_file_says(name: str) -> None:
    scenario = committed(name)
    zooms = [event for event in scenario.events if event["event"] == "zoom"]
    accepted = [z for z in zooms if "refused" not in z]
    assert {z.get("refused") for z in zooms} == {None, "zoom"}
    assert {z["n"] for z in accepted} >= {1, 2}
    exchanges = list(from_model(scenario, SPEC, strict=True))
    assert expected_refusals(exchanges) == [event.get("refused") for event in scenario.events]
    shown = [x for x in exchanges if x.position is not None and "zoom" in x.expected]
    assert [x.line["at"] for x in shown] == [
        at
        for at, event in enumerate(scenario.events)
        if event["event"] == "zoom" and "refused" not in event
    ]


def test_the_empty_chat_has_no_event_and_is_version_1() -> None:
    scenario = committed("empty_chat")
    assert scenario.events == [] and scenario.notes["family"] == "empty"
    first = (CORPUS / "empty_chat.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert scenario_format.loads(first)["format"] == FORMAT_1
