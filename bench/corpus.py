"""Measure 1: the engine against the model on the bridge corpus, the same
events and the same observations.

Both planners are timed on events already in their own form: texts are made
from their sizes, nodes are tuples for the engine and bit-list nodes for the
model, before the clock starts, so neither is timed converting scenario
records. After every event each observes what the bridge compares (view,
size, shrinking, the merges of both views, compaction view, both candidate
lists) in its own values, and at every chat batch and at the end also the
render and every candidate's context.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import impl
from bridge.formats.layout import files
from bridge.formats.profile import SPEC
from bridge.wire.inprocess import model_event
from bridge.wire.stream import from_model
from impl.constants import Constants as ImplConstants
from impl.errors import Refused as ImplRefused
from impl.planner import Planner
from model import machine
from model.constants import Constants as ModelConstants
from model.errors import Refused as ModelRefused
from model.events import Event
from scenarios.format import Scenario, is_relative, read, text_of

Materialized = tuple[Scenario, list[dict[str, Any]]]


def absolute(scenario: Scenario) -> list[tuple[int, dict[str, Any]]]:
    """The scenario's events with their positions, each relative one (format
    3) as the absolute event the bridge sends for it, in the order it sends
    them (bridge/wire/stream.py `from_model`, SPEC's profile)."""
    if not any(map(is_relative, scenario.events)):
        return list(enumerate(scenario.events))
    return [
        (exchange.position, {k: v for k, v in exchange.line.items() if k != "at"})
        for exchange in from_model(scenario, SPEC, strict=False)
        if exchange.position is not None and exchange.sent
    ]


def materialized(path: Path) -> Materialized:
    """A corpus scenario with every sized text made and every relative event
    made absolute, once, up front."""
    scenario = read(path)
    events = []
    for position, event in absolute(scenario):
        event = dict(event)
        if event["event"] == "message":
            event["text"] = text_of(event, "text", position)
        elif event["event"] == "end" and "replies" in event:
            event["replies"] = [
                {"text": text_of(reply, "text", position + k)}
                for k, reply in enumerate(event["replies"])
            ]
        elif event["event"] == "end":
            event["line"] = text_of(event, "line", position)
        event.pop("size", None)
        events.append(event)
    return scenario, events


def model_observe(state: machine.State, detail: bool) -> tuple[Any, ...]:
    """Every observation of the model, in its own values, in the order of
    the engine's `Planner.observe`."""
    observed: tuple[Any, ...] = (
        machine.view(state),
        machine.size(state),
        machine.shrinking(state),
        machine.merges(state),
        machine.compaction_view(state),
        machine.compaction_merges(state),
        machine.candidates(state),
        machine.candidates_waiting(state),
    )
    if detail or observed[3]:
        contexts = [machine.render_context(state, n) for n in observed[6]]
        observed += (machine.render(state), contexts)
    return observed


def impl_observe(planner: Planner, detail: bool) -> tuple[Any, ...]:
    """Every observation of the engine, in its own values: those after every
    event in one call (`Planner.observe`, as impl/protocol.py reads them),
    which also holds the merges of both views."""
    observed: tuple[Any, ...] = planner.observe()
    if detail or observed[3]:
        contexts = [planner.render_context(n) for n in observed[6]]
        observed += (planner.render(), contexts)
    return observed


def model_replay(scenario: Scenario, events: list[dict[str, Any]]) -> tuple[float, tuple]:
    """Seconds for the model to step through the events and observe after
    each; and its last observation."""
    state = machine.initial(ModelConstants(**scenario.constants))
    steps: list[Event] = [model_event(e, at) for at, e in enumerate(events)]
    last = len(steps) - 1
    observed: tuple = ()
    began = time.perf_counter()
    for at, event in enumerate(steps):
        try:
            state = machine.step(state, event)
        except ModelRefused:
            state = machine.refuse(state)
        observed = model_observe(state, at == last)
    return time.perf_counter() - began, observed


def impl_call(planner: Planner, event: dict[str, Any]) -> Callable[[], object]:
    """A scenario event as a call on the planner."""
    kind = event["event"]
    if kind == "message":
        return partial(planner.message, event["kind"], event["text"])
    if kind == "end" and "replies" in event:
        replies = [reply["text"] for reply in event["replies"]]
        return partial(planner.end_replies, tuple(event["node"]), replies)
    if kind == "end":
        return partial(planner.end, tuple(event["node"]), event["line"])
    if kind == "zoom":
        return partial(planner.zoom, event["id"], event["n"])
    if kind in ("start", "fail"):
        return partial(getattr(planner, kind), tuple(event["node"]))
    return getattr(planner, kind)  # type: ignore[no-any-return]


def impl_replay(scenario: Scenario, events: list[dict[str, Any]]) -> tuple[float, tuple]:
    """Seconds for the engine to apply the events and observe after each;
    and its last observation."""
    planner = Planner(ImplConstants(**scenario.constants))
    calls = [impl_call(planner, e) for e in events]
    last = len(calls) - 1
    observed: tuple = ()
    began = time.perf_counter()
    for at, call in enumerate(calls):
        try:
            call()
        except ImplRefused:
            pass
        observed = impl_observe(planner, at == last)
    return time.perf_counter() - began, observed


def seconds(
    replay: Callable[[Scenario, list[dict[str, Any]]], tuple[float, tuple]],
    corpus: list[Materialized],
) -> float:
    """Total seconds of `replay` over the corpus."""
    return sum(replay(scenario, events)[0] for scenario, events in corpus)


def corpus(quick: bool) -> list[Materialized]:
    """The whole corpus, or its first six scenarios for a smoke run, frozen
    out of the garbage collector's sight (gc.freeze): the harness keeps these
    millions of objects through every replay, and each collection that
    either planner's own garbage triggers would otherwise walk them all, a
    cost of the harness's data that neither planner holds (measured under
    load: the engine's replay 1.8 CPU s with them in sight, 1.1 s frozen; the
    model's 34 s and 28 s)."""
    replays = [materialized(path) for path in (files()[:6] if quick else files())]
    gc.freeze()
    return replays


def engine_seconds(replays: list[Materialized]) -> float:
    """The engine's seconds on the corpus: the median of three replays, each on
    a fresh planner. A replay takes about a second, short enough for a busy
    moment of this shared machine to show; the model's one replay takes a
    minute and evens such moments out."""
    return statistics.median(seconds(impl_replay, replays) for _ in range(3))


def main(argv: list[str] | None = None) -> None:
    """`python -m bench.corpus [--quick]`: the engine's seconds on the corpus
    (see engine_seconds), as JSON, with whether its planner is the C build
    (impl.COMPILED)."""
    parser = argparse.ArgumentParser(prog="python -m bench.corpus", description=main.__doc__)
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args(argv).quick
    engine = engine_seconds(corpus(quick))
    print(json.dumps({"engine_seconds": engine, "compiled": impl.COMPILED}))


if __name__ == "__main__":
    main(sys.argv[1:])
