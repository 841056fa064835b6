"""Shrinking a scenario an engine diverges on: events removed, the oldest
messages dropped and the constants made smaller, for as long as it still
diverges the same way (`Way`: the same event kind and field), and what is
left made a valid scenario again. A shrinker that kept any divergence would
drift to the cheapest one an engine has, away from the one it was given."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bridge.checking.compare import Divergence, run
from bridge.formats.capabilities import Capability
from bridge.wire.engine import Engine, EngineFault
from bridge.wire.stream import DETAIL_REQUEST, from_model
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError, is_relative

Way = tuple[str, str]
"""How a scenario diverges: the kind of the event where (`detail` for the
final detail request) and the part of SPEC its first differing field
belongs to (`PARTS`)."""

PARTS = {
    "views": (
        *("size", "shrinking", "merges", "cmerges", "view_digest", "cview_digest"),
        *("view", "cview", "render_crc", "contexts_crc", "render", "contexts"),
    ),
    "queue": ("queue", "queue_waiting", "started"),
    "timed-out render": ("render_timed_out", "render_timed_out_crc"),
}
"""Fields that one rule decides together, by the part of SPEC they show:
the views and their batches (SPEC 3), the work queue (SPEC 4), the
timed-out render (SPEC 4). A batch that merges too little shows in the
size of one scenario and in the merges of a smaller one: shrinking keeps
the part, so that it keeps the cause and not the first symptom. Every
other field (`refused`, `line`, `zoom`, one an engine adds) is a part of
its own."""

PART_OF = {name: part for part, names in PARTS.items() for name in names}


def way_of(found: Divergence) -> Way:
    """The way a divergence diverges (see `Way`)."""
    return (found.event or {}).get("event", "detail"), PART_OF.get(found.field, found.field)


def said(way: Way) -> str:
    """A way in words, for what a report says shrinking kept."""
    where = f"a {way[0]} event" if way[0] != "detail" else "the final detail request"
    fields = ", ".join(PARTS.get(way[1], (way[1],)))
    return f"the {way[1]} ({fields}) differing at {where}"


def diverges_as(
    engine: Engine,
    profile: Profile,
    way: Way,
    strict: bool = True,
    lacks: tuple[Capability, ...] = (),
) -> Callable[[Scenario], bool]:
    """Whether a scenario is valid for the model under `profile` (with
    `strict`, refused exactly where it says) and the engine, started again
    on it, lacking `lacks`, diverges from the model there in `way`. Every
    answer is read, so that an engine taking sessions takes the next try in
    the same process. An engine that faults on a try ends the shrink
    (`until_fault` keeps what was found before it)."""

    def still(scenario: Scenario) -> bool:
        try:
            ready = engine.start(scenario)
            if ready.unsupported is not None:
                return False
            exchanges = from_model(scenario, profile, strict=strict, lacks=lacks)
            found = run(exchanges, engine, ready, None, True, lacks=lacks).divergence
        except ScenarioError:
            engine.close()
            return False
        except EngineFault:
            engine.close()
            raise
        return found is not None and way_of(found) == way

    return still


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
    """The scenario up to the last event sent before the divergence. One
    with events relative to the state (scenario format 3) is cut as it was
    sent: its lines in their order, each relative event the absolute one it
    stood for, so that shrinking works on nodes, and removing an event does
    not move a later one to another call."""
    if any(map(is_relative, scenario.events)):
        events = [{k: v for k, v in line.items() if k != "at"} for line in found.lines]
        return replace(scenario, events=[e for e in events if e != DETAIL_REQUEST], lines=None)
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


def drop_calls(scenario: Scenario, still: Callable[[Scenario], bool], deadline: float) -> Scenario:
    """The scenario without the calls of as many nodes as found while `still`
    holds: a node's start, end and fail go together (removing one of them
    alone leaves the others refused), and no other event is renumbered."""
    named = list(dict.fromkeys(tuple(e["node"]) for e in scenario.events if "node" in e))
    for node in reversed(named):
        if time.monotonic() >= deadline:
            break
        events = [e for e in scenario.events if tuple(e.get("node", ())) != node]
        trial = replace(scenario, events=events, lines=None)
        if events and still(trial):
            scenario = trial
    return scenario


def line_bytes(event: dict[str, Any]) -> int | None:
    """The size of an end's given line (SPEC 5), None for replies."""
    if "line" in event:
        return len(event["line"].encode("utf-8"))
    return event.get("size")


def free_leaves(scenario: Scenario, still: Callable[[Scenario], bool], deadline: float) -> Scenario:
    """The scenario with as many leaves built by a call made free as found
    while `still` holds: the message's text made a sized text whose line is
    as long as the call's line was, the leaf's calls removed (SPEC 2: a line
    that fits NODE is built at once). Two events fewer, the view's sizes
    the same."""
    messages = [k for k, e in enumerate(scenario.events) if e["event"] == "message"]
    for leaf in reversed(range(len(messages))):
        if time.monotonic() >= deadline:
            break
        events = scenario.events
        ends = [e for e in events if e["event"] == "end" and e.get("node") == [0, leaf]]
        line = line_bytes(ends[0]) if len(ends) == 1 else None
        kind = events[messages[leaf]]["kind"]
        if line is None or line < len(kind) + 2:
            continue
        sized = {"event": "message", "kind": kind, "size": line - len(kind) - 2}
        kept = [
            sized if k == messages[leaf] else e
            for k, e in enumerate(events)
            if e.get("node") != [0, leaf]
        ]
        trial = replace(scenario, events=kept, lines=None)
        if still(trial):
            scenario = trial
    return scenario


def fewer_events(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """Events removed (`shrink`), the calls of a node removed together, leaves
    made free and the oldest messages dropped, in turn while `still` holds,
    until none of them removes an event."""
    while True:
        before = len(scenario.events)
        scenario = shrink(scenario, still, deadline - time.monotonic())
        scenario = drop_calls(scenario, still, deadline)
        scenario = free_leaves(scenario, still, deadline)
        scenario = drop_oldest(scenario, still, deadline)
        if len(scenario.events) == before or time.monotonic() >= deadline:
            return scenario


def halved(event: dict[str, Any]) -> dict[str, Any] | None:
    """The event with its text (a message's, or an end's line) half as long:
    a sized text half its size, a written one its first half. None when it
    has no text to halve."""
    for name in ("text", "line"):
        if name in event and event[name]:
            return {**event, name: event[name][: len(event[name]) // 2]}
    if event.get("size", 0) > 1:
        return {**event, "size": event["size"] // 2}
    return None


def smaller_sizes(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """The scenario with each text (a message's, a line's) as short as
    found while `still` holds, halving: what a batch does depends on sizes
    against the constants, and smaller constants need smaller texts."""
    events = list(scenario.events)
    for k in reversed(range(len(events))):
        while time.monotonic() < deadline:
            smaller = halved(events[k])
            if smaller is None:
                break
            trial = [*events[:k], smaller, *events[k + 1 :]]
            if not still(replace(scenario, events=trial, lines=None)):
                break
            events = trial
    return replace(scenario, events=events, lines=None)


def simplify(scenario: Scenario, still: Callable[[Scenario], bool], seconds: float) -> Scenario:
    """Fewer events while `still` holds; then, in turn, smaller constants and
    texts and fewer events again, until none of them changes the scenario or
    `seconds` are spent."""
    deadline = time.monotonic() + seconds
    scenario = fewer_events(scenario, still, deadline)
    while time.monotonic() < deadline:
        trial = smaller_constants(scenario, still, deadline)
        trial = smaller_sizes(trial, still, deadline)
        if trial == scenario:
            break
        scenario = fewer_events(trial, still, deadline)
    return scenario
