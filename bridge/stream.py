"""What the bridge sends an engine, and what it expects back (bridge/PROTOCOL.md).

An exchange is one line sent (an event as the protocol writes it, with its
position `at`, or the final detail request) and the answer a conforming
engine gives. The exchanges of a scenario come from its committed
transcript, or from the model replaying it under the engine's profile.

Under `calls: self` (SPEC 10) the scenario's `start` events are not sent:
the engine starts its own calls. An outcome (`end`, `fail`) of a call that
is not running is held, and sent right after the engine starts that call;
held outcomes go in the scenario's order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge import transcript
from bridge.engines import ModelEngine
from model import bits
from model.node import Node
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError

DETAIL_REQUEST: dict[str, Any] = {"detail": True}


@dataclass(frozen=True)
class Exchange:
    """One line the bridge sends, and the answer it expects."""

    line: dict[str, Any]
    expected: dict[str, Any]
    position: int | None
    """The event's position in the scenario; None for the final detail request."""


def wire(event: dict[str, Any], position: int) -> dict[str, Any]:
    """An event as the protocol sends it: without the scenario's expected
    refusal, with its position."""
    line = {k: v for k, v in event.items() if k != "refused"}
    line["at"] = position
    return line


def _running(model: ModelEngine, event: dict[str, Any]) -> bool:
    level, index = event["node"]
    return Node(level, bits.from_int(index)) in model.state.queue.running


def from_model(scenario: Scenario, profile: Profile, strict: bool) -> Iterator[Exchange]:
    """The exchanges of a scenario, by replaying it through the model under
    `profile`. With `strict`, every event must be refused exactly when the
    scenario marks it so, with the rule it names; otherwise ScenarioError
    names the file, line and what the model did."""
    model = ModelEngine(profile)
    model.start(scenario)
    held: list[int] = []

    def send(position: int) -> Exchange:
        line = wire(scenario.events[position], position)
        answer = model.answer(line)
        if strict:
            _check_refusal(scenario, position, answer, model.refusal)
        return Exchange(line, answer, position)

    for position, event in enumerate(scenario.events):
        if profile.self_calls:
            if event["event"] == "start":
                continue
            if event["event"] in ("end", "fail") and not _running(model, event):
                held.append(position)
                continue
        yield send(position)
        while profile.self_calls:
            due = next((p for p in held if _running(model, scenario.events[p])), None)
            if due is None:
                break
            held.remove(due)
            yield send(due)
    yield Exchange(DETAIL_REQUEST, model.answer(DETAIL_REQUEST), None)


def _check_refusal(scenario: Scenario, position: int, answer: dict[str, Any], why: str) -> None:
    marked = scenario.events[position].get("refused")
    found = answer.get("refused")
    if marked == found:
        return
    where = f"{scenario.source}:{position + 2}"
    if marked is None:
        raise ScenarioError(f"{where}: impossible event: {why}")
    did = "accepts it" if found is None else f"refuses it as {found} ({why})"
    raise ScenarioError(f"{where}: the scenario expects a refusal as {marked}; the model {did}")


def from_transcript(scenario: Scenario, path: Path) -> Iterator[Exchange]:
    """The exchanges of a scenario as its committed transcript records them."""
    count = len(scenario.events)
    for record in transcript.records(path):
        if "at" not in record:
            yield Exchange(DETAIL_REQUEST, {k: v for k, v in record.items() if k != "detail"}, None)
            continue
        at = record.pop("at")
        if not isinstance(at, int) or not 0 <= at < count:
            raise transcript.TranscriptError(
                f"{path}: a record for event {at!r}, not in the scenario"
            )
        yield Exchange(wire(scenario.events[at], at), record, at)
