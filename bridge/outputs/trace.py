"""A scenario replayed through the model for its pictures: the sawtooth at
every event sent (SPEC 3.3, 3.4), and the whole views at the events a page
can be opened at, as its script reads them."""

from __future__ import annotations

import string
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from bridge.wire.inprocess import ModelEngine
from bridge.wire.observe import pairs
from bridge.wire.stream import from_model, wire
from model import bits, machine
from model.machine import State
from model.node import Node
from model.node import name as node_name
from model.profile import Profile
from model.view import View
from scenarios.format import Scenario, is_relative

SAMPLES = 200
"""How many evenly spaced events have their views in the page, beside every batch."""


def name(level: int, index: int) -> str:
    """A node's name `start+count` (SPEC 2), or `(level, index)` for one too
    high for those numbers to be written out (model/node.py `name`)."""
    return node_name(Node(level, bits.from_int(index)))


def said(event: dict[str, Any], refused: str | None = None) -> str:
    """An event in a few words, and the rule the model refused it by."""
    kind = event["event"]
    words = kind
    if kind == "message":
        size = event.get("size", len(event.get("text", "").encode("utf-8", "surrogatepass")))
        words = f"message {event['kind']} ({size:,} bytes)"
    elif "node" in event:
        words = f"{kind} {name(*event['node'])}"
        if "replies" in event:
            words += f" ({len(event['replies'])} replies)"
    elif kind == "zoom":
        words = f"zoom {event['id']} n={event['n']}"
    return f"{words}, refused: {refused}" if refused else words


@dataclass(frozen=True)
class Point:
    """The sawtooth after one event sent (SPEC 3.3, 3.4): both views' sizes,
    whether the chat view is shrinking, and whether each view's batch merged."""

    at: int
    size: int
    csize: int
    shrinking: bool
    batch: bool
    cbatch: bool


@dataclass(frozen=True)
class Replay:
    """A scenario replayed through the model: the sawtooth at every event
    sent, and the whole views at the chosen ones (`stops`, as the page's
    script reads them)."""

    points: list[Point]
    stops: list[dict[str, Any]]
    messages: int


def sent(scenario: Scenario, profile: Profile) -> list[dict[str, Any]]:
    """The event lines the bridge sends, in its order: the scenario's, but
    under `calls: self` without starts and with held outcomes later, and
    relative events as the absolute ones they stand for (bridge/wire/stream.py,
    SPEC 10)."""
    if not profile.self_calls and not any(map(is_relative, scenario.events)):
        return [wire(event, at) for at, event in enumerate(scenario.events)]
    exchanges = from_model(scenario, profile, strict=False)
    return [exchange.line for exchange in exchanges if exchange.position is not None]


def code(state: State, view: View) -> str:
    """A view as one letter per line, oldest first: its level as `a`, `b`,
    ... when built, `A`, `B`, ... while not (SPEC 3); the lines tile the
    chat, so their levels say where each one lies. (Levels stop at `z`:
    a chat of 2^26 messages.)"""
    letters = (string.ascii_uppercase, string.ascii_lowercase)
    return "".join(letters[machine.text(state, n) is not None][n.level] for n in view)


def stop(k: int, line: dict[str, Any], answer: dict[str, Any], state: State) -> dict[str, Any]:
    """Everything the page shows of the state after the `k`-th line sent,
    with the sentence that says it (`s`)."""
    view, cview = machine.view(state), machine.compaction_view(state)
    running, queued = state.queue.running, machine.candidates(state)
    merges, cmerges = len(machine.merges(state)), len(machine.compaction_merges(state))
    size, csize, count = machine.size(state), state.compaction.size, bits.to_int(state.count)
    shrinking = ", shrinking" if machine.shrinking(state) else ""
    batch = f" · batch: {merges} chat merges, {cmerges} compaction merges"
    sentence = (
        f"event {line['at']}: {said(line, answer.get('refused'))} · {count:,} messages · "
        f"chat view {len(view)} lines, {size:,} bytes{shrinking} · compaction view "
        f"{len(cview)} lines, {csize:,} bytes · {len(running)} running, {len(queued)} queued"
        + (batch if merges or cmerges else "")
    )
    return {
        "k": k,
        "at": line["at"],
        "s": sentence,
        "T": count,
        "v": code(state, view),
        "c": code(state, cview),
        "r": pairs(running),
        "q": pairs(queued),
    }


def replay(scenario: Scenario, profile: Profile, wanted: Collection[int] = ()) -> Replay:
    """Replay the scenario through the model under `profile`, keeping the
    views at every batch, at SAMPLES events evenly spaced, at the last one
    and at the events `wanted` (positions in the file)."""
    lines = sent(scenario, profile)
    last = len(lines) - 1
    samples = {round(j * last / SAMPLES) for j in range(SAMPLES + 1)} if lines else set()
    model = ModelEngine(profile)
    model.start(scenario)
    points: list[Point] = []
    stops: list[dict[str, Any]] = []
    for k, line in enumerate(lines):
        answer = model.answer(line)
        state = model.state
        point = Point(
            line["at"],
            machine.size(state),
            state.compaction.size,
            machine.shrinking(state),
            bool(machine.merges(state)),
            bool(machine.compaction_merges(state)),
        )
        points.append(point)
        if point.batch or point.cbatch or k in samples or line["at"] in wanted:
            stops.append(stop(k, line, answer, state))
    return Replay(points, stops, bits.to_int(model.state.count))
