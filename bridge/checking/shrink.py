"""Shrinking a scenario an engine diverges on: events removed, the oldest
messages dropped and the constants made smaller, for as long as it still
diverges, and what is left made a valid scenario again."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from bridge.checking.compare import Divergence, run
from bridge.wire.engine import Engine, EngineFault
from bridge.wire.stream import from_model
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError


def diverges(scenario: Scenario, profile: Profile, make: Callable[[], Engine]) -> bool:
    """Whether the scenario is valid for the model under `profile` (refused
    exactly where it says) and the engine diverges from the model on it."""
    engine = make()
    try:
        ready = engine.start(scenario)
        return run(from_model(scenario, profile, strict=True), engine, ready).divergence is not None
    except ScenarioError:
        return False
    finally:
        engine.close()


def until_fault(
    shrinking: Callable[[Callable[[Scenario], bool]], Scenario],
    still: Callable[[Scenario], bool],
    start: Scenario,
) -> tuple[Scenario, EngineFault | None]:
    """What `shrinking` ends with, given `still`, and None; when the engine
    faults on the way, the last scenario `still` held for (`start` if none)
    and the fault: a divergence found is never lost to a later fault."""
    last = start

    def tracked(candidate: Scenario) -> bool:
        nonlocal last
        if still(candidate):
            last = candidate
            return True
        return False

    try:
        return shrinking(tracked), None
    except EngineFault as fault:
        return last, fault


def stopped_line(fault: EngineFault) -> str:
    """The one line saying that shrinking stopped at an engine fault."""
    said = str(fault).splitlines()[0]
    return f"the shrink stopped at an ENGINE FAULT ({said}); kept: the last diverging scenario"


def shrink(
    scenario: Scenario, still: Callable[[Scenario], bool], seconds: float = 120.0
) -> Scenario:
    """The fewest events found within `seconds` for which `still` holds: chunks
    of events removed (halves, quarters, ... single events) while it does."""
    deadline = time.monotonic() + seconds
    events = scenario.events
    chunk = max(1, len(events) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start = 0
        removed = False
        while start < len(events) and time.monotonic() < deadline:
            candidate = replace(
                scenario, events=events[:start] + events[start + chunk :], lines=None
            )
            if candidate.events and still(candidate):
                events = candidate.events
                removed = True
            else:
                start += chunk
        if not removed:
            chunk //= 2
    return replace(scenario, events=events, lines=None)


def cut(scenario: Scenario, found: Divergence) -> Scenario:
    """The scenario up to the last event sent before the divergence."""
    sent = [line["at"] for line in found.lines if "at" in line]
    last = max(sent) + 1 if sent else len(scenario.events)
    return replace(scenario, events=scenario.events[:last], lines=None)


def marked(scenario: Scenario, profile: Profile) -> Scenario:
    """The scenario with each event the model refuses marked with its rule, as
    the format asks of a scenario whose events are not all allowed."""
    events = [{k: v for k, v in e.items() if k != "refused"} for e in scenario.events]
    plain = replace(scenario, events=events, lines=None)
    rules = {
        exchange.position: exchange.expected["refused"]
        for exchange in from_model(plain, profile, strict=False)
        if exchange.position is not None and "refused" in exchange.expected
    }
    return replace(
        plain,
        events=[{**e, "refused": rules[k]} if k in rules else e for k, e in enumerate(events)],
    )


LOWEST = {"floor": 0, "cfloor": 0, "node": 4}
"""The smallest value of each constant shrinking tries (1 for the others not
listed; a ceiling not below its floor)."""

SHRUNK_CONSTANTS = (
    *("floor", "ceiling", "cfloor", "cceiling"),
    *("node", "jobs", "ahead", "tries", "failures"),
)


def smaller_constants(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """The scenario with each constant as small as found while `still` holds
    (smaller budgets need fewer events to reach the same batch)."""
    from model.constants import Constants

    constants = dict(scenario.constants)
    for name in SHRUNK_CONSTANTS:
        value = int(constants[name])
        lowest = {"ceiling": constants["floor"], "cceiling": constants["cfloor"]}.get(
            name, LOWEST.get(name, 1)
        )
        steps = {value - ((value - int(lowest)) >> k) for k in range(value.bit_length() + 1)}
        for candidate in sorted(steps):
            if not lowest <= candidate < value or time.monotonic() >= deadline:
                continue
            trial = {**constants, name: candidate}
            try:
                Constants(**trial)  # type: ignore[arg-type]
            except ValueError:
                continue
            if still(replace(scenario, constants=trial, lines=None)):
                constants = trial
                break
    return replace(scenario, constants=constants, lines=None)


def without_oldest(scenario: Scenario, level: int) -> Scenario | None:
    """The scenario without its first 2^level messages, the nodes of later
    events renumbered to match (those at `level` or below; one inside the
    removed messages goes with them). None when it has fewer messages."""
    block = 1 << level
    gone = {k for k, e in enumerate(scenario.events) if e["event"] == "message"}
    gone = set(sorted(gone)[:block])
    if len(gone) < block:
        return None
    events = []
    for k, event in enumerate(scenario.events):
        if k in gone:
            continue
        if "node" in event and event["node"][0] <= level:
            node_level, index = event["node"]
            index -= 1 << (level - node_level)
            if index < 0:
                continue
            event = {**event, "node": [node_level, index]}
        events.append(event)
    return replace(scenario, events=events, lines=None)


def drop_oldest(scenario: Scenario, still: Callable[[Scenario], bool], deadline: float) -> Scenario:
    """The scenario without as many of its oldest messages as found while
    `still` holds: what diverges is often about the newest ones only, which
    removing single events cannot renumber."""
    messages = sum(e["event"] == "message" for e in scenario.events)
    level = max(messages.bit_length() - 1, 0)
    while level >= 0 and time.monotonic() < deadline:
        trial = without_oldest(scenario, level)
        if trial is not None and trial.events and still(trial):
            scenario = trial
        else:
            level -= 1
    return scenario


def fewer_events(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """Events removed (`shrink`) and the oldest messages dropped
    in turn while `still` holds, until neither removes one."""
    while True:
        scenario = shrink(scenario, still, deadline - time.monotonic())
        dropped = drop_oldest(scenario, still, deadline)
        if dropped is scenario or time.monotonic() >= deadline:
            return dropped
        scenario = dropped


def simplify(scenario: Scenario, still: Callable[[Scenario], bool], seconds: float) -> Scenario:
    """Fewer events while `still` holds; then, in turn, smaller constants and
    fewer events again, kept only while that leaves fewer events, until
    `seconds` are spent."""
    deadline = time.monotonic() + seconds
    scenario = fewer_events(scenario, still, deadline)
    while time.monotonic() < deadline:
        trial = smaller_constants(scenario, still, deadline)
        if trial.constants == scenario.constants:
            break
        trial = fewer_events(trial, still, deadline)
        if len(trial.events) >= len(scenario.events):
            break
        scenario = trial
    return scenario
