"""Histories: Hypothesis strategies for constants and event sequences, and
the runner that checks every step law after every step (SPEC 8).

Events are drawn from what the state allows (the model's candidates and
running calls), so every order the queue allows appears: messages from
empty to many times NODE with multibyte characters and all three newline
kinds, call starts, ends and failures in any order, waits, settles,
timeouts and retry ticks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Broken, Held, Law, Profile, Step, derandomized
from model import bits, machine
from model import node as nodes
from model.constants import KINDS, Constants
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait
from scenarios import format as scenario_format

SMALL_TEXT = st.text(alphabet=st.sampled_from(list("ab é€😀\r\n")), max_size=12)


@st.composite
def small_constants(draw: st.DrawFn) -> Constants:
    """Small budgets, so deep trees, many batches, shrinking views and
    failure caps show up in short histories."""
    node = draw(st.sampled_from([16, 32, 64]))
    ceiling = draw(st.integers(3 * node, 30 * node))
    floor = draw(st.integers(ceiling // 4, ceiling))
    cceiling = draw(st.integers(node, ceiling))
    cfloor = draw(st.integers(cceiling // 4, cceiling))
    return Constants(
        node=node,
        ceiling=ceiling,
        floor=floor,
        cceiling=cceiling,
        cfloor=cfloor,
        jobs=draw(st.integers(1, 4)),
        ahead=draw(st.integers(1, 4)),
        tries=draw(st.integers(1, 5)),
        failures=draw(st.integers(1, 3)),
    )


@st.composite
def any_constants(draw: st.DrawFn) -> Constants:
    """Small budgets mostly; the SPEC defaults in about one history in ten."""
    return Constants() if draw(st.integers(0, 99)) >= 90 else draw(small_constants())


CONSTANTS = any_constants()


def texts(node: int) -> st.SearchStrategy[str]:
    """Message texts: tiny ones, and sized ones up to six times NODE."""
    return st.one_of(
        SMALL_TEXT,
        st.builds(scenario_format.sized_text, st.integers(0, 6 * node), st.integers(0, 60)),
    )


def draw_event(data: st.DataObject, state: machine.State) -> Event:
    """One event the state allows, weighted towards messages and calls."""
    c = state.constants
    options = ["message"] * 4
    if machine.candidates(state):
        options += ["start"] * 4
    if state.queue.running:
        options += ["end"] * 4 + ["fail"]
    if state.queue.held:
        options += ["retry"]
    options += ["timeout"] if state.queue.waiting else ["wait"]
    if state.queue.waiting and machine.settled(state):
        options += ["settle"] * 4
    choice = data.draw(st.sampled_from(options))
    if choice == "message":
        return Message(data.draw(st.sampled_from(KINDS)), data.draw(texts(c.node)))
    if choice == "start":
        return Start(data.draw(st.sampled_from(machine.candidates(state))))
    if choice in ("end", "fail"):
        node = data.draw(st.sampled_from(state.queue.running))
        if choice == "fail":
            return Fail(node)
        size = data.draw(st.one_of(st.integers(1, 6), st.integers(1, c.node)))
        return End(node, scenario_format.sized_text(size, data.draw(st.integers(0, 60))))
    return {"wait": Wait(), "timeout": Timeout(), "settle": Settle(), "retry": Retry()}[choice]


def event_dict(event: Event) -> dict[str, Any]:
    """An event in the scenario format."""
    match event:
        case Message(kind, text):
            return {"event": "message", "kind": kind, "text": text}
        case Start(node):
            return {"event": "start", "node": [node.level, bits.to_int(node.index)]}
        case End(node, line):
            return {"event": "end", "node": [node.level, bits.to_int(node.index)], "line": line}
        case Fail(node):
            return {"event": "fail", "node": [node.level, bits.to_int(node.index)]}
    return {"event": type(event).__name__.lower()}


def constants_dict(c: Constants) -> dict[str, int | float]:
    return {name: getattr(c, name) for name in scenario_format.CONSTANTS}


def describe(event: Event) -> str:
    match event:
        case Message(kind, text):
            return f"message {kind} ({len(text.encode('utf-8'))} bytes) {text[:40]!r}"
        case Start(node):
            return f"start {nodes.name(node)}"
        case End(node, line):
            return f"end {nodes.name(node)} with a {len(line.encode('utf-8'))}-byte line"
        case Fail(node):
            return f"fail {nodes.name(node)}"
    return type(event).__name__.lower()


@dataclass
class Failure:
    law: str
    message: str
    constants: Constants
    events: list[Event]


@dataclass
class Tally:
    seconds: dict[str, float] = field(default_factory=dict)
    histories: int = 0
    events: int = 0


def _search(active: list[Law], profile: Profile, tally: Tally) -> Failure | None:
    failures: list[Failure] = []

    @derandomized(profile.histories)
    @given(CONSTANTS, st.data())
    def history(constants: Constants, data: st.DataObject) -> None:
        state = machine.initial(constants)
        events: list[Event] = []
        tally.histories += 1
        for _ in range(data.draw(st.integers(0, profile.steps))):
            event = draw_event(data, state)
            after = machine.step(state, event)
            events.append(event)
            tally.events += 1
            current = Step(state, event, after)
            for law in active:
                began = time.perf_counter()
                try:
                    law.function(current)
                except AssertionError as error:
                    failures.append(Failure(law.name, str(error), constants, list(events)))
                    raise
                finally:
                    tally.seconds[law.name] = (
                        tally.seconds.get(law.name, 0.0) + time.perf_counter() - began
                    )
            state = after

    try:
        history()
    except AssertionError:
        return failures[-1]
    return None


def write_counterexample(failure: Failure, folder: Path) -> Path:
    """The failing history as a scenario file the bridge can replay."""
    path = folder / f"law_{failure.law}.jsonl"
    scenario_format.write(
        scenario_format.Scenario(
            constants=constants_dict(failure.constants),
            events=[event_dict(e) for e in failure.events],
            generator=f"laws: shrunk counterexample to {failure.law}",
            notes={"law": failure.law, "says": failure.message},
        ),
        path,
    )
    return path


def check_step_laws(
    laws: list[Law],
    profile: Profile,
    folder: Path,
    progress: Callable[[str], None] = lambda _: None,
) -> tuple[dict[str, Held | Broken], dict[str, float], Tally]:
    """Check every step law on the profile's histories. A broken law is
    reported with its shrunk history, then the rest are checked again
    without it, so each law gets its own verdict."""
    results: dict[str, Held | Broken] = {}
    active = list(laws)
    tally = Tally()
    while active:
        progress(f"histories: {len(active)} step laws, up to {profile.histories} histories")
        failure = _search(active, profile, tally)
        if failure is None:
            strength = (
                f"property over {profile.histories} histories of up to {profile.steps} events"
            )
            for law in active:
                results[law.name] = Held(strength)
            break
        law = next(law for law in active if law.name == failure.law)
        lines = [
            f"constants: {constants_dict(failure.constants)}",
            *(f"{k:3d}. {describe(e)}" for k, e in enumerate(failure.events, start=1)),
            f"broken after the last event: {failure.message}",
        ]
        path = write_counterexample(failure, folder)
        results[law.name] = Broken(law.name, law.statement, "\n".join(lines), str(path))
        active.remove(law)
    return results, tally.seconds, tally
