"""Which rule an engine's own call starts break, under `calls: self` (SPEC 4,
4.1, 10): after each event the engine must start the queue's first
candidate, again and again until none is left."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bridge.wire.inprocess import ModelEngine, model_event
from model import bits, machine
from model.errors import Refused
from model.events import Start
from model.node import Node
from model.profile import Profile
from scenarios.format import Scenario


def wrong_start(
    scenario: Scenario, profile: Profile, lines: list[dict[str, Any]], started: Any
) -> str | None:
    """What is wrong with the calls an engine says it `started` after the
    last of `lines`, naming the rule the first wrong one breaks; None when
    the model refuses that event (then nothing starts) or the starts are right."""
    model = ModelEngine(profile)
    model.start(scenario)
    for line in lines[:-1]:
        model.answer(line)
    last = lines[-1]
    driven = replace(model.state, profile=replace(profile, calls="driven"))
    try:
        state = machine.step(driven, model_event(last, last["at"]))
    except Refused:
        return None
    if not isinstance(started, list):
        return f"started is {started!r}, not a list of [level, index]"
    for pair in started:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in pair)
        ):
            return f"started holds {pair!r}, not a [level, index]"
        node = Node(pair[0], bits.from_int(pair[1]))
        try:
            after = machine.step(state, Start(node))
        except Refused as refused:
            return f"the start of {pair} breaks rule {refused.rule} ({refused.detail})"
        first = machine.candidates(state)[0]
        if node != first:
            return (
                f"the start of {pair} breaks rule queue_order (calls: self starts the "
                f"queue's first candidate, [{first.level}, {bits.to_int(first.index)}])"
            )
        state = after
    left = machine.candidates(state)
    if left:
        node = left[0]
        return (
            f"[{node.level}, {bits.to_int(node.index)}] was not started: calls: self starts "
            "every candidate (SPEC 10)"
        )
    return None
