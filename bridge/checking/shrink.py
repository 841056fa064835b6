"""Shrinking a scenario an engine diverges on: events removed, the oldest
messages dropped and the constants made smaller, for as long as it still
diverges the same way (`Way`: the same event kind and field), and what is
left made a valid scenario again. A shrinker that kept any divergence would
drift to the cheapest one an engine has, away from the one it was given."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from bridge.checking.compare import Divergence, run
from bridge.formats.capabilities import Capability
from bridge.formats.limits import NONE, Limits
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
    way: Hashable,
    strict: bool = True,
    lacks: tuple[Capability, ...] = (),
    accepted: Limits = NONE,
    of: Callable[[Divergence], Hashable] = way_of,
) -> Callable[[Scenario], bool]:
    """Whether a scenario is valid for the model under `profile` (with
    `strict`, refused exactly where it says), has constants the engine
    `accepted`, and the engine, started again on it, lacking `lacks`,
    diverges from the model there in `way` (what `of` says of its first
    divergence: its `Way`, unless told otherwise). Every answer is read, so
    that an engine taking sessions takes the next try in the same process
    (bridge/PROTOCOL.md): a shrink starts it once. A fault in a process
    taken again is tried once more in a fresh one; an engine that faults
    there ends the shrink (`until_fault` keeps what was found before it)."""

    def replayed(scenario: Scenario) -> bool:
        try:
            ready = engine.start(scenario)
            if ready.unsupported is not None:
                return False
            exchanges = from_model(scenario, profile, strict=strict, lacks=lacks)
            found = run(exchanges, engine, ready, None, True, lacks=lacks).divergence
        except ScenarioError:
            return False  # the next start ends this replay as a scenario ends
        except EngineFault:
            engine.close()
            raise
        return found is not None and of(found) == way

    def still(scenario: Scenario) -> bool:
        if accepted.broken(scenario.constants) is not None:
            return False
        try:
            return replayed(scenario)
        except EngineFault:
            if not engine.reused:
                raise
        return replayed(scenario)

    return still


SHRUNK = "shrunk"
"""The note of a shrunk scenario's header (scenarios/README.md, "Notes"):
`from`, the file name of the scenario first shrunk (a scenario shrunk
again keeps it), and `divergence`, the provisional cause id
(bridge/checking/causes.py `Signature.id`, without what it keeps) of the
divergence the shrink kept."""


def shrunk_note(origin: str, divergence: str) -> dict[str, dict[str, str]]:
    """The notes that mark a scenario shrunk from `origin`, keeping `divergence`."""
    return {SHRUNK: {"from": origin, "divergence": divergence}}


def shrunk_for(scenario: Scenario) -> tuple[str, str] | None:
    """What a scenario's `shrunk` note says: the file it was first shrunk
    from and the divergence kept; None when it has no such note (a note
    that is not an object of two strings is none: notes are free-form)."""
    note = scenario.notes.get(SHRUNK)
    if not isinstance(note, dict):
        return None
    origin, divergence = note.get("from"), note.get("divergence")
    if not isinstance(origin, str) or not origin or not isinstance(divergence, str):
        return None
    return Path(origin).name, divergence


def size_of(scenario: Scenario) -> tuple[int, int]:
    """How big a scenario is: its events, then their JSON length."""
    return len(scenario.events), len(json.dumps(scenario.events))


@dataclass
class Progress:
    """A shrink under way, as its progress line says it and as an
    interruption keeps it: the replays made (of `total`), and the smallest
    scenario found so far that still diverges (`start` until one is)."""

    best: Scenario
    total: int | None = None
    tries: int = 0

    def said(self) -> str:
        of = "" if self.total is None else f"/{self.total}"
        return f"{self.tries}{of} tries, smallest so far {len(self.best.events)} events"


def until_fault(
    shrinking: Callable[[Callable[[Scenario], bool]], Scenario],
    still: Callable[[Scenario], bool],
    start: Scenario,
    progress: Progress | None = None,
) -> tuple[Scenario, EngineFault | None]:
    """What `shrinking` ends with, given `still`, and None; when the engine
    faults on the way, the smallest scenario `still` held for (`start` if
    none) and the fault: a divergence found is never lost to a later fault.
    Each try and the smallest scenario so far are kept in `progress`, for a
    progress line and for what an interruption (Ctrl-C, SIGTERM) keeps."""
    progress = progress or Progress(start)

    def tracked(candidate: Scenario) -> bool:
        progress.tries += 1
        if still(candidate):
            if size_of(candidate) <= size_of(progress.best):
                progress.best = candidate
            return True
        return False

    try:
        return shrinking(tracked), None
    except EngineFault as fault:
        return progress.best, fault


def stopped_line(fault: EngineFault) -> str:
    """The one line saying that shrinking stopped at an engine fault."""
    said = str(fault).splitlines()[0]
    return f"the shrink stopped at an ENGINE FAULT ({said}); kept: the last diverging scenario"


TRIES = 4000
"""How many replays shrinking makes at most, unless told otherwise."""


@dataclass
class Budget:
    """What shrinking may still spend: replays, counted so that a busy machine
    shrinks as far as a quiet one, and a wall-clock deadline (none unless given)."""

    tries: int = TRIES
    deadline: float = math.inf

    def over(self) -> bool:
        return self.tries <= 0 or time.monotonic() >= self.deadline

    def left(self) -> tuple[float, int]:
        """The seconds and tries still to spend, as `simplify` and `parted` take them."""
        return self.deadline - time.monotonic(), self.tries

    def counting(self, still: Callable[[Scenario], bool]) -> Callable[[Scenario], bool]:
        """`still`, each call spending a try; false once the budget is spent."""

        def counted(scenario: Scenario) -> bool:
            if self.over():
                return False
            self.tries -= 1
            return still(scenario)

        return counted


def shrink(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The fewest events found within `budget` for which `still` holds: chunks
    of events removed (halves, quarters, ... single events) while it does."""
    events = scenario.events
    chunk = max(1, len(events) // 2)
    while chunk >= 1 and not budget.over():
        start = 0
        removed = False
        while start < len(events) and not budget.over():
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


PAIRS_UP_TO = 40
"""Removing every two events together is tried on scenarios this short."""


def drop_pairs(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario without two events at a time, any two, while `still`
    holds: an event that removing alone leaves refused, or that another
    event needs, goes with the one it belongs to."""
    if len(scenario.events) > PAIRS_UP_TO:
        return scenario
    first = len(scenario.events) - 2
    while first >= 0 and not budget.over():
        events = scenario.events
        for second in reversed(range(first + 1, len(events))):
            kept = [e for k, e in enumerate(events) if k not in (first, second)]
            trial = replace(scenario, events=kept, lines=None)
            if kept and still(trial):
                scenario = trial
                break
        first = min(first, len(scenario.events) - 1) - 1
    return scenario


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
    scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget
) -> Scenario:
    """The scenario with each constant as small as found while `still` holds,
    lowered until no step down holds (smaller budgets need fewer events to
    reach the same batch)."""
    from model.constants import Constants

    constants = dict(scenario.constants)
    for name in SHRUNK_CONSTANTS:
        lowered = True
        while lowered and not budget.over():
            lowered = False
            value = int(constants[name])
            lowest = {"ceiling": constants["floor"], "cceiling": constants["cfloor"]}.get(
                name, LOWEST.get(name, 1)
            )
            steps = {value - ((value - int(lowest)) >> k) for k in range(value.bit_length() + 1)}
            for candidate in sorted(steps):
                if not lowest <= candidate < value or budget.over():
                    continue
                trial = {**constants, name: candidate}
                try:
                    Constants(**trial)  # type: ignore[arg-type]
                except ValueError:
                    continue
                if still(replace(scenario, constants=trial, lines=None)):
                    constants, lowered = trial, True
                    break
    return replace(scenario, constants=constants, lines=None)


def messages_of(scenario: Scenario) -> list[int]:
    """The positions of the scenario's messages: the k-th is leaf k."""
    return [k for k, e in enumerate(scenario.events) if e["event"] == "message"]


def without_block(scenario: Scenario, level: int, block: int) -> Scenario | None:
    """The scenario without its messages `block * 2^level` to `(block + 1) *
    2^level - 1` and every event of a node over them; later nodes of
    `level` or below renumbered to match, later ones above it (which no
    longer start where a node of their level can) dropped, zooms likewise.
    None when it has fewer messages."""
    size = 1 << level
    first = block * size
    leaves = messages_of(scenario)
    if len(leaves) < first + size:
        return None
    gone = set(leaves[first : first + size])
    events = []
    for k, event in enumerate(scenario.events):
        if k in gone:
            continue
        if "node" in event:
            node_level, index = event["node"]
            start = index << node_level
            if start + (1 << node_level) > first:
                if start < first + size or node_level > level:
                    continue
                event = {**event, "node": [node_level, index - (size >> node_level)]}
        elif event["event"] == "zoom" and event["id"] + event["n"] > first:
            if event["id"] < first + size or event["n"] > size:
                continue
            event = {**event, "id": event["id"] - size}
        events.append(event)
    return replace(scenario, events=events, lines=None)


def drop_blocks(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario without as many blocks of messages as found while `still`
    holds, the largest blocks first, the newest of each size first: what
    diverges is often about a few messages only, which removing single
    events cannot renumber."""
    level = max(len(messages_of(scenario)).bit_length() - 1, 0)
    while level >= 0 and not budget.over():
        block = (len(messages_of(scenario)) >> level) - 1
        while block >= 0 and not budget.over():
            trial = without_block(scenario, level, block)
            if trial is not None and trial.events and still(trial):
                scenario = trial
            block -= 1
        level -= 1
    return scenario


def without_calls(scenario: Scenario, node: tuple[int, int]) -> list[dict[str, Any]]:
    """The scenario's events but the calls of `node`."""
    return [e for e in scenario.events if tuple(e.get("node", ())) != node]


def drop_calls(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario without the calls of as many nodes as found while `still`
    holds: a node's start, end and fail go together (removing one of them
    alone leaves the others refused), and no other event is renumbered."""
    named = list(dict.fromkeys(tuple(e["node"]) for e in scenario.events if "node" in e))
    for node in reversed(named):
        if budget.over():
            break
        events = without_calls(scenario, node)  # type: ignore[arg-type]
        trial = replace(scenario, events=events, lines=None)
        if events and still(trial):
            scenario = trial
    return scenario


def free_parents(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario with as many parents built by a call made free as found
    while `still` holds: the call removed and the texts of the messages
    under the parent emptied, so that its source fits NODE and it is built
    with its halves (SPEC 2)."""
    named = dict.fromkeys(tuple(e["node"]) for e in scenario.events if "node" in e)
    for level, index in reversed([n for n in named if n[0] > 0]):
        if budget.over():
            break
        under = messages_of(scenario)[index << level : (index + 1) << level]
        events = scenario.events
        emptied = [
            {"event": "message", "kind": e["kind"], "text": ""} if k in under else e
            for k, e in enumerate(events)
        ]
        trial = replace(scenario, events=emptied, lines=None)
        trial = replace(trial, events=without_calls(trial, (level, index)))
        if still(trial):
            scenario = trial
    return scenario


SWEEP = 256
"""How many values of CEILING `only_messages` tries at most."""


def only_messages(
    scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget
) -> Scenario:
    """The scenario as its messages alone, their texts emptied, with the
    lowest CEILING from FLOOR up (to where no batch would start) found
    while `still` holds, under its NODE and then under a NODE that every
    parent of those messages fits: how a view merges seldom needs a call
    once its parents are built free (SPEC 2), but with smaller texts a batch
    starts at another CEILING (SPEC 3.3), which no single smaller constant
    reaches."""
    from model.constants import Constants

    events = [
        {"event": "message", "kind": e["kind"], "text": ""}
        for e in scenario.events
        if e["event"] == "message"
    ]
    if not events or events == scenario.events:
        return scenario
    given = int(scenario.constants["node"])
    # A parent's source holds each message's kind and a few bytes more.
    whole = sum(len(e["kind"].encode("utf-8", "surrogatepass")) + 4 for e in events)
    for node in dict.fromkeys((given, max(given, whole))):
        floor = int(scenario.constants["floor"])
        # Lines that fit NODE make a view of at most NODE bytes a line: a
        # higher CEILING would never start a batch.
        ceiling = max(int(scenario.constants["ceiling"]), node * len(events))
        for value in range(floor, ceiling + 1, max(1, (ceiling - floor) // SWEEP)):
            if budget.over():
                return scenario
            constants = {**scenario.constants, "node": node, "ceiling": value}
            try:
                Constants(**constants)  # type: ignore[arg-type]
            except ValueError:
                continue
            trial = replace(scenario, constants=constants, events=events, lines=None)
            if still(trial):
                return trial
    return scenario


def line_bytes(event: dict[str, Any]) -> int | None:
    """The size of an end's given line (SPEC 5); None for replies, and for a
    line with no UTF-8 form (a lone surrogate, which the model refuses by
    rule `utf8`): no sized text stands for it."""
    if "line" in event:
        try:
            return len(event["line"].encode("utf-8"))
        except UnicodeEncodeError:
            return None
    return event.get("size")


def free_leaves(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario with as many leaves built by a call made free as found
    while `still` holds: the message's text made a sized text whose line is
    as long as the call's line was, the leaf's calls removed (SPEC 2: a line
    that fits NODE is built at once). Two events fewer, the view's sizes
    the same."""
    messages = messages_of(scenario)
    for leaf in reversed(range(len(messages))):
        if budget.over():
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


KINDS = ("message", "start", "end", "replies", "fail", "retry", "wait", "settle", "timeout", "zoom")
"""The kinds of events, as a cause names what its shrunk scenario keeps
(bridge/checking/causes.py), and, last first, as shrinking removes them:
an `end` given by its replies is a kind of its own (`replies`), its line
chosen by SPEC 5's rules."""


def kind_of(event: dict[str, Any]) -> str:
    """An event's kind (`KINDS`)."""
    name = str(event["event"])
    return "replies" if name == "end" and "replies" in event else name


def plain_texts(scenario: Scenario) -> Scenario:
    """The scenario with each text given by its size (a message's, an end's
    line) written out as that many `x`: the same sizes, so the same views,
    batches and queue, but none of the filler's line breaks and other
    characters (scenarios/format.py FILLER), which an engine's bug about
    text could show in."""
    events = [
        {
            **{k: v for k, v in e.items() if k != "size"},
            ("text" if e["event"] == "message" else "line"): "x" * e["size"],
        }
        if "size" in e and e["event"] in ("message", "end")
        else e
        for e in scenario.events
    ]
    return replace(scenario, events=events, lines=None)


def fewer_kinds(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """The scenario without every event of one kind (`KINDS`, the last
    first) while `still` holds: one try removes all of what a divergence
    does not need, however many events of it there are."""
    for kind in reversed(KINDS):
        if budget.over():
            break
        kept = [e for e in scenario.events if kind_of(e) != kind]
        if kept and len(kept) < len(scenario.events):
            trial = replace(scenario, events=kept, lines=None)
            if still(trial):
                scenario = trial
    return scenario


def fewer_events(scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget) -> Scenario:
    """Events removed (`shrink`), every event of a kind removed
    (`fewer_kinds`), the calls of a node removed together, leaves and
    parents made free and blocks of messages dropped, in turn while `still`
    holds, until none of them removes an event."""
    passes = (shrink, fewer_kinds, drop_calls, free_leaves, free_parents, drop_blocks)
    while True:
        before = len(scenario.events)
        for step in passes:
            scenario = step(scenario, still, budget)
        if len(scenario.events) == before or budget.over():
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
    scenario: Scenario, still: Callable[[Scenario], bool], budget: Budget
) -> Scenario:
    """The scenario with each text (a message's, a line's) as short as
    found while `still` holds, halving: what a batch does depends on sizes
    against the constants, and smaller constants need smaller texts."""
    events = list(scenario.events)
    for k in reversed(range(len(events))):
        while not budget.over():
            smaller = halved(events[k])
            if smaller is None:
                break
            trial = [*events[:k], smaller, *events[k + 1 :]]
            if not still(replace(scenario, events=trial, lines=None)):
                break
            events = trial
    return replace(scenario, events=events, lines=None)


def simplify(
    scenario: Scenario,
    still: Callable[[Scenario], bool],
    seconds: float = math.inf,
    tries: int = TRIES,
) -> Scenario:
    """Fewer events while `still` holds, then the messages alone (CEILING
    found again) and fewer events; then, in turn, smaller constants and
    texts and fewer events again, until none of them changes the scenario,
    `tries` replays are spent or (when given) `seconds`. Where they stop, the
    dearer passes: the messages alone again, then any two events removed
    together."""
    budget = Budget(tries, time.monotonic() + seconds)
    still = budget.counting(still)
    scenario = fewer_events(scenario, still, budget)
    scenario = fewer_events(only_messages(scenario, still, budget), still, budget)
    while not budget.over():
        trial = smaller_constants(scenario, still, budget)
        trial = smaller_sizes(trial, still, budget)
        for dearer in (only_messages, drop_pairs):
            if trial != scenario:
                break
            trial = dearer(trial, still, budget)
        if trial == scenario:
            break
        scenario = fewer_events(trial, still, budget)
    return scenario


def parted(
    scenario: Scenario,
    alone: Callable[[Scenario], bool],
    seconds: float = math.inf,
    tries: int = TRIES,
) -> Scenario | None:
    """A scenario for which `alone` holds (a bug shows there without
    another), found from one for which it does not by lowering a constant
    (`smaller_constants`: such as a NODE no message's line fits, which
    leaves out what no removal of events can, a leaf built free), then
    simplified while it holds, within `tries` and `seconds`; None when no
    constant lowered gives one. Tried before a shrink that keeps the other
    bug, whose sweeps would spend the budget before lowering them."""
    budget = Budget(tries, time.monotonic() + seconds)
    lowered = smaller_constants(scenario, budget.counting(alone), budget)
    if lowered == scenario:
        return None
    return simplify(lowered, alone, budget.deadline - time.monotonic(), budget.tries)


class Spending(Protocol):
    """What a shrink may spend, as the commands' --shrink-tries and
    --shrink-seconds give it (None: no limit)."""

    shrink_tries: int
    shrink_seconds: float | None


def shrink_budget(args: Spending) -> str:
    """The shrinking budget given, in words."""
    budget = f"{args.shrink_tries} tries"
    if args.shrink_seconds is not None:
        budget += f" or {args.shrink_seconds:g} s"
    return budget
