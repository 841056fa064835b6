"""The scenario generator: deterministic, legal for the model, truthful notes,
the late family's shrinking views, turns that wait, settle and time out."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge.engines import ModelEngine
from model import bits, machine
from model.constants import KINDS, Constants
from model.node import Node
from scenarios import format as scenario_format
from scenarios import generate
from scenarios.format import Scenario

SCENARIOS = Path(generate.__file__).parent

SMALL: dict[str, Callable[[], Scenario]] = {
    "steady": lambda: generate.steady(60),
    "deep_6000": lambda: generate.deep(6_000, 3_000, 100),
    "deep_2000": lambda: generate.deep(2_000, 1_000, 100),
    "late": lambda: generate.late(16_000, 8_000, 300),
    "random_04": lambda: generate.randomized(4, 100),
    "random_07": lambda: generate.randomized(7, 100),
    "random_23": lambda: generate.randomized(23, 100),
}
"""Each family with the message count cut down (the corpus budgets kept)."""


@pytest.fixture(scope="module")
def small() -> dict[str, Scenario]:
    return {name: make() for name, make in SMALL.items()}


def node_of(event: dict) -> Node:
    """The model's node for an event's `[level, index]`."""
    return Node(event["node"][0], bits.from_int(event["node"][1]))


model_event = ModelEngine.event
"""A format event as the model's event; sized texts at their position."""


@dataclass(frozen=True)
class Replayed:
    """One event replayed: the event, its position, the states around it."""

    event: dict
    position: int
    before: machine.State
    after: machine.State


def replay(scenario: Scenario) -> Iterator[Replayed]:
    """Replay the scenario through the model, from its written lines; a
    refused event raises `Refused` and fails the test."""
    parsed = scenario_format.parse(scenario_format.dump(scenario))
    state = machine.initial(Constants(**parsed.constants))
    for position, event in enumerate(parsed.events):
        before, state = state, machine.step(state, model_event(event, position))
        yield Replayed(event, position, before, state)


@pytest.mark.parametrize("name", SMALL)
def test_the_same_seed_gives_the_same_bytes(name: str, small: dict[str, Scenario]) -> None:
    assert list(scenario_format.dump(SMALL[name]())) == list(scenario_format.dump(small[name]))


def test_another_seed_gives_another_chat() -> None:
    one, two = generate.steady(40, seed=1), generate.steady(40, seed=2)
    assert one.events != two.events


@pytest.mark.parametrize("name", SMALL)
def test_every_event_parses_and_is_legal_and_the_notes_are_true(
    name: str, small: dict[str, Scenario]
) -> None:
    scenario = small[name]
    merged = cmerged = shrinking = without_merge = ended = level = lines = caps = 0
    for step in replay(scenario):
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
    names = [event["event"] for event in scenario.events]
    assert notes["events"] == {e: names.count(e) for e in scenario_format.EVENTS}
    kinds = [event["kind"] for event in scenario.events if event["event"] == "message"]
    assert notes["kinds"] == {k: kinds.count(k) for k in KINDS}
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
        state = machine.step(state, model_event(event, position))
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


def test_the_committed_corpus_is_what_the_generator_writes(tmp_path: Path) -> None:
    assert generate.main(["--out", str(tmp_path), "--only", "random_00"]) == 0
    written = (tmp_path / "random_00.jsonl").read_bytes()
    assert written == (SCENARIOS / "corpus" / "random_00.jsonl").read_bytes()


def test_the_corpus_holds_every_scenario_and_each_parses() -> None:
    files = sorted(path.stem for path in (SCENARIOS / "corpus").glob("*.jsonl"))
    assert files == sorted(generate.corpus())
    for path in (SCENARIOS / "corpus").glob("*.jsonl"):
        scenario = scenario_format.read(path)
        assert scenario.generator == generate.GENERATOR
        family, *numbers = path.stem.split("_")
        assert scenario.notes["family"] == family
        if family != "random":
            # steady_3000, deep_4000_6000, late_1500: the message count, then the ceiling.
            count = sum(event["event"] == "message" for event in scenario.events)
            assert count == int(numbers[0])
            if len(numbers) > 1:
                assert scenario.constants["ceiling"] == int(numbers[1])


def test_the_schema_names_what_the_format_checks() -> None:
    schema = json.loads((SCENARIOS / "schema.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    defs = schema["$defs"]
    header = defs["header"]
    assert header["properties"]["format"]["const"] == scenario_format.FORMAT
    assert set(header["properties"]["constants"]["required"]) == set(scenario_format.CONSTANTS)
    events = {branch["properties"]["event"]["const"]: branch for branch in defs["event"]["oneOf"]}
    assert set(events) == set(scenario_format.EVENTS)
    for name, fields in scenario_format.EVENTS.items():
        assert set(events[name]["properties"]) == {"event", *fields}
    assert events["message"]["properties"]["kind"]["enum"] == list(KINDS)
