"""The scenario corpus: seeded chats driven through the reference model
(SPEC 3.3, 3.4, 4), after the scenario families of eukhe's bridge.

    python -m scenarios.generate [--out scenarios/corpus] [--only NAME]

Every event is chosen from what `model.machine` allows in the current state
(the calls it lists as candidates, the calls it has running, a wait only when
no turn waits, a settle only when the view is settled), then stepped through
the model, so a generated file holds only legal events. Messages and call
lines are written by size (`scenarios.format.sized_text`); the model is fed
the very text the size stands for.

Randomness is `numpy.random.Generator(PCG64(seed))` with integer draws only
(numpy as pinned in requirements.lock), and the files hold only integers and
strings, so the corpus is the same byte for byte on every machine; it is
committed, so an engine never needs to regenerate it. What each run did (events by kind, batches,
shrinking, deepest view line) is measured while generating and kept in the
header's `notes`.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from numpy.random import PCG64, Generator

from model import bits, machine
from model import node as nodes
from model.constants import KINDS, Constants
from model.errors import Refused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.node import Node
from model.text import TRIM_SETS, strip
from scenarios import format as scenario_format
from scenarios.format import Scenario, sized_text

GENERATOR = "scenarios.generate"

DEFAULTS = Constants(retry=10, settle_timeout=20)
"""SPEC 7, with RETRY and SETTLE_TIMEOUT as whole seconds (integers in the files)."""

Weights = dict[str, int]
Bucket = tuple[int, int, int]
"""`(weight, low, high)`: a size drawn uniformly from `low..high` bytes."""

CHAT_SIZES: dict[str, tuple[Bucket, ...]] = {
    # SPEC 1 kinds, sizes of the text in bytes.
    "user": ((70, 1, 300), (25, 300, 2_000), (5, 2_000, 6_000)),
    "unii": ((35, 20, 500), (50, 500, 3_000), (15, 3_000, 10_000)),
    "tool": ((85, 20, 300), (15, 300, 1_500)),
    "echo": ((40, 10, 1_000), (35, 1_000, 6_000), (20, 6_000, 20_000), (5, 20_000, 30_000)),
    "work": ((50, 100, 1_500), (50, 1_500, 6_000)),
    "note": ((80, 30, 600), (20, 600, 3_000)),
}
"""Realistic sizes: short user messages with the odd paste, replies of a few
KB, small tool calls, tool outputs up to the 30,000-byte tool cap (SPEC 7)."""

CHAT_NEXT: dict[str, Weights] = {
    "user": {"tool": 55, "unii": 40, "note": 5},
    "tool": {"echo": 100},
    "echo": {"tool": 55, "unii": 35, "work": 10},
    "unii": {"user": 80, "work": 12, "note": 8},
    "work": {"unii": 60, "user": 40},
    "note": {"user": 60, "unii": 40},
}
"""Which kind follows which: a user asks, the agent calls tools, each call's
output echoes back, the agent replies; subagent reports and notes now and then."""

WAIT_AFTER: Weights = {"user": 1, "echo": 1, "work": 1}
"""The kinds after which a turn may be about to start (SPEC 4): a user
message, a tool output, a background report."""


def pick(rng: Generator, weights: Weights) -> str:
    """A key drawn with integer weights (no floats, so the same on every machine)."""
    roll = int(rng.integers(sum(weights.values())))
    for key, weight in weights.items():
        if roll < weight:
            return key
        roll -= weight
    raise AssertionError("unreachable: the roll is below the total weight")


def draw_size(rng: Generator, buckets: tuple[Bucket, ...]) -> int:
    """A size from weighted `(weight, low, high)` ranges."""
    chosen = pick(rng, {str(k): weight for k, (weight, _, _) in enumerate(buckets)})
    _, low, high = buckets[int(chosen)]
    return int(rng.integers(low, high + 1))


def node_list(node: Node) -> list[int]:
    """A node as the format writes it, `[level, index]`."""
    return [node.level, bits.to_int(node.index)]


def constants_dict(c: Constants) -> dict[str, int | float]:
    """The header's constants (SPEC 7), every one of them."""
    return {name: getattr(c, name) for name in scenario_format.CONSTANTS}


@dataclass
class Tally:
    """What a run did, measured event by event (SPEC 3.3, 4)."""

    events: dict[str, int] = field(default_factory=lambda: dict.fromkeys(scenario_format.EVENTS, 0))
    kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    batches_merged: int = 0
    compaction_batches_merged: int = 0
    shrinking_messages: int = 0
    shrinking_without_merge: int = 0
    shrinking_ended: int = 0
    max_view_level: int = 0
    max_view_lines: int = 0
    failure_caps: int = 0

    def notes(self) -> dict[str, Any]:
        """The tally as the header's `notes` fields."""
        return {
            "events": {e: n for e, n in self.events.items() if e != "zoom" or n},
            "kinds": dict(self.kinds),
            "batches_merged": self.batches_merged,
            "compaction_batches_merged": self.compaction_batches_merged,
            "shrinking_messages": self.shrinking_messages,
            "shrinking_without_merge": self.shrinking_without_merge,
            "shrinking_ended": self.shrinking_ended,
            "max_view_level": self.max_view_level,
            "max_view_lines": self.max_view_lines,
            "failure_caps": self.failure_caps,
        }


SPACE_ENDS = tuple(
    sorted(
        {char for chars in TRIM_SETS.values() for char in chars}
        - set.intersection(*(set(chars) for chars in TRIM_SETS.values()))
        | {"\x1f"}
    )
)
"""Every character some named set of white space holds and another does not
(SPEC 3.6: U+000B, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029,
U+202F, U+205F, U+3000, U+FEFF), and U+001F, which no set holds though
Python's `str.strip` strips it."""


def blank(reply: str) -> bool:
    """Whether a reply is empty once stripped of some named set of white
    space (SPEC 3.6, 5): a call that reads it fails under SPEC 10
    `empty_reply: fails`."""
    return any(not strip(reply, name) for name in TRIM_SETS)


def flat(text: str) -> str:
    """A text with each `\r` and `\n` a space: no line break, the same size."""
    return text.replace("\r", " ").replace("\n", " ")


def space_end(spaced: Counter[str], what: str) -> str:
    """The character of SPACE_ENDS the next text of `what` (a given line, a
    reply) made to end in one ends in: each in turn, counted in `spaced`."""
    spaced[what] += 1
    return SPACE_ENDS[(spaced[what] - 1) % len(SPACE_ENDS)]


def spaced_with(text: str, char: str) -> str:
    """`text` with each space made `char`, cut back to its size at a
    character boundary and padded with `.` (as `sized_text`), then ending in
    `char`: a word cut (SPEC 10 `cut`) of it backs up to `char` under the
    sets of white space that hold it, and past it under those that do not."""
    size = len(text.encode("utf-8"))
    spaced = text.replace(" ", char).encode("utf-8")[:size].decode("utf-8", errors="ignore")
    return spaced + "." * (size - len(spaced.encode("utf-8"))) + char


class Run:
    """One chat being generated: the model state, the events written so far
    and the tally. Each method writes one event and steps the model with it;
    a `Refused` from the model means the generator broke a rule (SPEC 4)."""

    def __init__(self, constants: Constants, seed: int, rng: Generator | None = None) -> None:
        self.constants = constants
        self.seed = seed
        self.rng = rng or Generator(PCG64(seed))
        self.state = machine.initial(constants)
        self.events: list[dict[str, Any]] = []
        self.tally = Tally()
        self.replies = False
        """Whether calls end with the replies they got (SPEC 5), not a line."""
        self.after_message: Callable[[Run], None] | None = None
        """What follows every message (the zoom family's zooms)."""
        self.spaced: Counter[str] = Counter()
        """How many given lines and replies were made to end in a character
        of SPACE_ENDS (`space_end`)."""
        self.retry_due = False
        """Whether a call failed since the last `retry` event, or ended with
        an empty reply (it fails under SPEC 10 `empty_reply: fails`)."""
        self.flat = False
        """Whether its texts hold no line break: given in full, not by size."""

    def _step(self, event: Event, record: dict[str, Any]) -> None:
        self.state = machine.step(self.state, event)
        self.events.append(record)
        self.tally.events[record["event"]] += 1

    def _text(self, size: int) -> str:
        """The text a `size` field stands for at the next event's position;
        in a run with `flat` texts, that text with each line break a space."""
        text = sized_text(size, len(self.events))
        return flat(text) if self.flat else text

    def _given(self, name: str, size: int) -> tuple[str, dict[str, Any]]:
        """The text of `size` bytes at the next event, and how its record
        gives it: by size, or in full when texts are `flat` (a size stands
        for a text with line breaks)."""
        text = self._text(size)
        return text, ({name: text} if self.flat else {"size": size})

    def message(self, kind: str, size: int) -> None:
        """Log a message (SPEC 1) and measure the batch it ran (SPEC 3.3).
        The first message of each kind names its kind, so that an engine
        that does not take it must refuse it; every later one is of a kind
        the engine takes (scenarios/README.md, "Relative events")."""
        was_shrinking = machine.shrinking(self.state)
        text, given = self._given("text", size)
        record: dict[str, Any] = {"event": "message", "kind": kind, **given}
        if self.tally.kinds[kind]:
            record["untaken"] = "taken"
        self._step(Message(kind, text), record)
        t = self.tally
        t.kinds[kind] += 1
        merged = bool(machine.merges(self.state))
        t.batches_merged += merged
        t.compaction_batches_merged += bool(self.state.compaction.merges)
        if machine.shrinking(self.state):
            t.shrinking_messages += 1
            t.shrinking_without_merge += not merged
        elif was_shrinking:
            t.shrinking_ended += 1
        view = machine.view(self.state)
        t.max_view_level = max(t.max_view_level, max(line.level for line in view))
        t.max_view_lines = max(t.max_view_lines, len(view))
        if self.after_message is not None:
            self.after_message(self)

    def start(self, node: Node) -> None:
        """Start a candidate, named by its place among the candidates (the
        compactor does the next thing, whatever node that is under the
        engine's profile: scenarios/README.md, "Relative events")."""
        candidate = machine.candidates(self.state).index(node)
        self._step(Start(node), {"event": "start", "candidate": candidate})

    def _call(self, node: Node) -> dict[str, Any]:
        """A running call as an outcome names it: by its place among the
        running calls, oldest first."""
        return {"running": self.state.queue.running.index(node)}

    def end(self, node: Node) -> None:
        """End a call with its line (SPEC 5: every built line is 1 to NODE
        bytes), or with the replies it got. Where calls end with replies,
        every fourth reply and every eighth end's line end in a character the
        named sets of white space disagree on (SPEC 3.6): `space_end`; such a
        reply has it between its words too (`spaced_with`)."""
        at = len(self.events)
        if self.replies and at % 8 == 5:
            text = self._text(min(self._line_size(), self.constants.node - 3))
            text += space_end(self.spaced, "line")
            self._step(End(node, text), {"event": "end", **self._call(node), "line": text})
            return
        if self.replies:
            sizes = self._reply_sizes()
            texts = [sized_text(size, at + k) for k, size in enumerate(sizes)]
            replies: list[dict[str, Any]] = [{"size": n} for n in sizes]
            for k in range(len(texts)):
                if (at + k) % 4 == 0:
                    texts[k] = spaced_with(texts[k], space_end(self.spaced, "reply"))
                    replies[k] = {"text": texts[k]}
            record = {"event": "end", **self._call(node), "replies": replies}
            self._step(End(node, replies=tuple(texts)), record)
            self.retry_due |= any(blank(t) for t in texts[: self.constants.tries])
            return
        text, given = self._given("line", self._line_size())
        self._step(End(node, text), {"event": "end", **self._call(node), **given})

    def _reply_sizes(self) -> list[int]:
        """The replies one call got (SPEC 5): up to TRIES + 2 of them, mostly
        over NODE, some fitting, some empty, and often a follow-up exactly as
        long as the one before (not shorter: it ends the tries)."""
        node, rng = self.constants.node, self.rng
        sizes: list[int] = []
        for _ in range(int(rng.integers(1, self.constants.tries + 3))):
            choice = pick(rng, {"over": 5, "same": 3 if sizes else 0, "fit": 2, "empty": 1})
            if choice == "over":
                sizes.append(int(rng.integers(node + 1, 3 * node + 1)))
            elif choice == "same":
                sizes.append(sizes[-1])
            elif choice == "fit":
                sizes.append(int(rng.integers(1, node + 1)))
            else:
                sizes.append(0)
        return sizes

    def refuse(self, event: Event, record: dict[str, Any], rule: str) -> None:
        """Write an event the model refuses with `rule`, marked so (SPEC 4.1)."""
        try:
            machine.step(self.state, event)
        except Refused as refused:
            if refused.rule != rule:
                raise AssertionError(f"expected {rule}, the model named {refused.rule}") from None
        else:
            raise AssertionError(f"the model took an event meant to break {rule}")
        self.state = machine.refuse(self.state)
        self.events.append({**record, "refused": rule})
        self.tally.events[record["event"]] += 1

    def zoom(self, id: int, n: int) -> None:
        """Zoom into the chat (SPEC 3.5); refused ones are written as such."""
        record = {"event": "zoom", "id": id, "n": n}
        event = Zoom(bits.from_int(id), bits.from_int(n))
        try:
            self._step(event, record)
        except Refused:
            self.refuse(event, record, "zoom")

    def _line_size(self) -> int:
        """Eight lines in ten of 25/64 NODE to NODE bytes (200..512 of 512),
        the rest of 1..NODE."""
        node = self.constants.node
        if self.rng.integers(10) < 8:
            return int(self.rng.integers(max(1, node * 25 // 64), node + 1))
        return int(self.rng.integers(1, node + 1))

    def fail(self, node: Node) -> None:
        """A failed call; the FAILURES-th builds the node from its cut source (SPEC 4)."""
        self._step(Fail(node), {"event": "fail", **self._call(node)})
        self.retry_due = True
        self.tally.failure_caps += machine.text(self.state, node) is not None

    def wait(self) -> None:
        self._step(Wait(), {"event": "wait"})

    def settle(self) -> None:
        """The waiting turn goes on once the view is settled; where the
        engine's profile leaves it unsettled, the turn times out instead."""
        self._step(Settle(), {"event": "settle", "unsettled": "timeout"})

    def timeout(self) -> None:
        """The waiting turn times out; where the engine's profile let it go
        on by itself (SPEC 10 `resume: self`), nothing is sent."""
        self._step(Timeout(), {"event": "timeout", "unwaited": "unsent"})

    def retry(self) -> None:
        self._step(Retry(), {"event": "retry"})
        self.retry_due = False

    def scenario(self, notes: dict[str, Any]) -> Scenario:
        return Scenario(
            constants=constants_dict(self.constants),
            events=self.events,
            generator=GENERATOR,
            seed=self.seed,
            notes={**notes, **self.tally.notes()},
        )


# The compactors.


def eager(run: Run) -> None:
    """A compactor that never lags: start every candidate in queue order and
    end it at once, until none is left (SPEC 4). While a turn waits the
    candidates are the view's unbuilt lines only."""
    while candidates := machine.candidates(run.state):
        run.start(candidates[0])
        run.end(candidates[0])


PHASES: Weights = {"fast": 4, "leaves": 3, "slow": 2, "stalled": 1}
"""The late compactor's phases: all work at full pace; only message calls at
full pace, merges put off (so a batch finds parents unbuilt); up to two
actions between messages; none."""


@dataclass
class Late:
    """A compactor that lags: between events it takes a few actions, each a
    call start, a call outcome or a retry tick, in random order (SPEC 4). Its
    pace changes by phases of 5..60 messages (`PHASES`); a call ends, or
    fails with `fail_permille`, and a few nodes (`stuck_permille`) fail every
    time, so they reach the FAILURES cap."""

    rng: Generator
    fail_permille: int
    stuck_permille: int
    fast: int
    pace: int = 0
    leaves_only: bool = False
    phase_left: int = 0
    stuck: dict[Node, bool] = field(default_factory=dict)

    def act(self, run: Run) -> bool:
        """One compactor action; False when none is possible."""
        state = run.state
        candidates = machine.candidates(state)
        if self.leaves_only:
            candidates = tuple(node for node in candidates if node.level == 0)
        options: Weights = {}
        if candidates:
            options["start"] = 3
        if state.queue.running:
            options["outcome"] = 4
        if state.queue.held:
            options["retry"] = 1
        if not options:
            return False
        action = pick(self.rng, options)
        if action == "start":
            node = candidates[int(self.rng.integers(len(candidates)))]
            if node not in self.stuck:
                self.stuck[node] = int(self.rng.integers(1000)) < self.stuck_permille
            run.start(node)
        elif action == "outcome":
            node = state.queue.running[int(self.rng.integers(len(state.queue.running)))]
            if self.stuck.get(node, False) or self.rng.integers(1000) < self.fail_permille:
                run.fail(node)
            else:
                run.end(node)
        else:
            run.retry()
        return True

    def between(self, run: Run) -> None:
        """The actions between two messages, at the current phase's pace,
        after a retry tick when a call failed since the last one: RETRY
        passes between messages, and an engine that lets a failed node go
        on its tick alone (SPEC 10 `retry: tick`) would otherwise keep it
        held until the compactor happened to tick."""
        if run.retry_due:
            run.retry()
        if self.phase_left == 0:
            self.phase_left = int(self.rng.integers(5, 61))
            phase = pick(self.rng, PHASES)
            self.pace = {"fast": self.fast, "leaves": self.fast, "slow": 2, "stalled": 0}[phase]
            self.leaves_only = phase == "leaves"
        self.phase_left -= 1
        for _ in range(int(self.rng.integers(self.pace + 1))):
            if not self.act(run):
                return


@dataclass(frozen=True)
class Chat:
    """How messages come: sizes per kind, which kind follows which, how often
    a turn waits (one in `wait_every` messages of a waiting kind) and how
    often a wait times out."""

    sizes: dict[str, tuple[Bucket, ...]]
    follow: dict[str, Weights]
    wait_every: int
    timeouts_per_10: int
    background_per_100: int = 0
    """While a turn waits, the chance in a hundred per compactor step that a
    background report (`work`) arrives; only the random family sets it."""


def background(run: Run, chat: Chat) -> None:
    """While a turn waits, a background report may arrive (SPEC 1: `work`)."""
    if run.rng.integers(100) < chat.background_per_100:
        run.message("work", draw_size(run.rng, chat.sizes["work"]))


def wait_turn(run: Run, chat: Chat, late: Late | None) -> None:
    """A turn about to start waits (SPEC 4). A wait that finds the view
    unsettled times out `chat.timeouts_per_10` times in ten, and always the
    first time in a run: before SETTLE_TIMEOUT the compactor makes fewer calls
    than the view needs (eager) or at most two actions (late). Otherwise it
    works on the view's unbuilt lines until the view is settled, and the turn
    settles; law settle_reached bounds how long that takes."""
    run.wait()
    background(run, chat)
    first_timeout = run.tally.events["timeout"] == 0
    if not machine.settled(run.state) and (
        first_timeout or run.rng.integers(10) < chat.timeouts_per_10
    ):
        if late is None:
            candidates = machine.candidates(run.state)
            for node in candidates[: int(run.rng.integers(len(candidates)))]:
                run.start(node)
                run.end(node)
        else:
            for _ in range(int(run.rng.integers(3))):
                late.act(run)
        if not machine.settled(run.state):
            run.timeout()
            return
    elif late is None:
        eager(run)
    else:
        while not machine.settled(run.state):
            acted = late.act(run)
            assert acted, "an unsettled view always has a call to start or end, or a retry"
            background(run, chat)
    run.settle()


def talk(run: Run, chat: Chat, messages: int, late: Late | None) -> None:
    """`messages` messages, each followed by the compactor (eager or late),
    with a wait every so often (SPEC 3.3, 4)."""
    kind = "user"
    for _ in range(messages):
        run.message(kind, min(draw_size(run.rng, chat.sizes[kind]), run.constants.tool_cap))
        if kind in WAIT_AFTER and run.rng.integers(chat.wait_every) == 0:
            wait_turn(run, chat, late)
        if late is None:
            eager(run)
        else:
            late.between(run)
        kind = pick(run.rng, chat.follow[kind])


# The families.

STEADY_CHAT = Chat(CHAT_SIZES, CHAT_NEXT, wait_every=4, timeouts_per_10=2)


def steady(messages: int = 3_000, seed: int = 3_000) -> Scenario:
    """Realistic sizes at the SPEC 7 budgets and a compactor that never lags:
    the sawtooth of SPEC 3.3 with every parent built when a batch runs."""
    run = Run(DEFAULTS, seed)
    talk(run, STEADY_CHAT, messages, None)
    return run.scenario(
        {
            "family": "steady",
            "budgets": "SPEC 7 defaults",
            "compactor": "never lags: after each message every candidate starts and ends "
            "at once; lines 200..512 bytes mostly, 1..512 otherwise",
        }
    )


def deep(ceiling: int, floor: int, messages: int = 4_000, seed: int = 4_000) -> Scenario:
    """Small budgets for a deep tree: the chat view holds a handful of lines,
    so the view reaches high levels (SPEC 2, 3.3). The compaction budgets are
    half the chat ones (SPEC 7 has them a quarter; half keeps more than a line
    or two in the compaction view)."""
    constants = replace(
        DEFAULTS, ceiling=ceiling, floor=floor, cceiling=ceiling // 2, cfloor=floor // 2
    )
    run = Run(constants, seed)
    talk(run, STEADY_CHAT, messages, None)
    return run.scenario(
        {
            "family": "deep",
            "budgets": f"chat {ceiling}/{floor}, compaction {ceiling // 2}/{floor // 2} "
            "(half the chat budgets)",
            "compactor": "never lags, as in steady",
        }
    )


LATE_CHAT = Chat(CHAT_SIZES, CHAT_NEXT, wait_every=5, timeouts_per_10=3)


def late(ceiling: int, floor: int, messages: int = 1_500, seed: int = 1_500) -> Scenario:
    """A late compactor: calls start, end and fail in any order, some nodes
    reach the FAILURES cap, retry ticks come and go; batches stop above FLOOR
    with parents unbuilt, run again at every message (SPEC 3.3: shrinking),
    and reach FLOOR once the merges are built. The compaction budgets are a
    quarter of the chat ones, as in SPEC 7. The chat budgets are below SPEC 7's
    so that batches come every few dozen messages: at 128,000 bytes a batch
    comes every ~180 messages and the late compactor has caught up by then."""
    constants = replace(
        DEFAULTS, ceiling=ceiling, floor=floor, cceiling=ceiling // 4, cfloor=floor // 4
    )
    run = Run(constants, seed)
    compactor = Late(run.rng, fail_permille=120, stuck_permille=20, fast=24)
    talk(run, LATE_CHAT, messages, compactor)
    return run.scenario(
        {
            "family": "late",
            "budgets": f"chat {ceiling}/{floor}, compaction {ceiling // 4}/{floor // 4} "
            "(a quarter of the chat budgets)",
            "compactor": "late: random start/end/fail order, in phases of 5..60 messages "
            "(fast, message calls only, slow, stalled); 120 outcomes in 1000 fail, "
            "20 nodes in 1000 fail every time",
        }
    )


def random_constants(rng: Generator) -> Constants:
    """Budgets from 1,000 to 128,000 bytes (even in log scale), FLOOR below
    CEILING, compaction budgets below those, and random queue limits (SPEC 7)."""
    low = 1_000 << int(rng.integers(7))
    ceiling = min(128_000, int(rng.integers(low, 2 * low + 1)))
    floor = int(rng.integers(ceiling // 4, ceiling))
    cceiling = int(rng.integers(ceiling // 8, ceiling))
    top = min(cceiling, floor)
    return replace(
        DEFAULTS,
        node=(64, 128, 256, 512)[int(rng.integers(4))],
        ceiling=ceiling,
        floor=floor,
        cceiling=cceiling,
        cfloor=int(rng.integers(top // 4, top)),
        jobs=int(rng.integers(1, 9)),
        ahead=int(rng.integers(1, 9)),
        tries=int(rng.integers(1, 6)),
        failures=int(rng.integers(1, 4)),
    )


def randomized(number: int, messages: int | None = None) -> Scenario:
    """Run `number` of the random family: random constants, sizes relative to
    NODE (free leaves, a few NODEs, many NODEs), an eager or late compactor
    with random failure rates, waits with background reports (SPEC 3.3, 4, 7).
    `messages` (drawn from 200..1,500 unless given) counts the chat's own
    messages; background reports that arrive during waits come on top."""
    seed = 100 + number
    rng = Generator(PCG64(seed))
    constants = random_constants(rng)
    node = constants.node
    buckets = (
        (int(rng.integers(1, 11)), 0, node),
        (int(rng.integers(1, 11)), node + 1, 4 * node),
        (int(rng.integers(1, 11)), 4 * node, min(60 * node, constants.tool_cap)),
    )
    chat = Chat(
        dict.fromkeys(KINDS, buckets),
        CHAT_NEXT,
        wait_every=int(rng.integers(2, 9)),
        timeouts_per_10=int(rng.integers(1, 6)),
        background_per_100=int(rng.integers(0, 11)),
    )
    count = int(rng.integers(200, 1_501)) if messages is None else messages
    compactor: Late | None = None
    described = "never lags, as in steady"
    if rng.integers(3):
        compactor = Late(
            rng,
            fail_permille=int(rng.integers(0, 301)),
            stuck_permille=int(rng.integers(0, 101)),
            fast=int(rng.integers(8, 41)),
        )
        described = (
            f"late: {compactor.fail_permille} outcomes in 1000 fail, "
            f"{compactor.stuck_permille} nodes in 1000 fail every time, "
            f"up to {compactor.fast} actions between messages when fast"
        )
    run = Run(constants, seed, rng)
    talk(run, chat, count, compactor)
    return run.scenario(
        {
            "family": "random",
            "budgets": "random, see constants",
            "sizes": [list(bucket) for bucket in buckets],
            "compactor": described,
            "wait": f"one in {chat.wait_every} user/echo/work messages; "
            f"{chat.timeouts_per_10} in 10 time out when unsettled; "
            f"{chat.background_per_100} in 100 steps of a wait bring a background report",
        }
    )


# The conformance families (scenario format version 2): refusals, the line
# chooser, zoom and the empty chat.

RULES = (
    "kind",
    "utf8",
    "node_exists",
    "built_once",
    "one_call_per_node",
    "need_first",
    "jobs_bound",
    "retry_waits",
    "ahead_bound",
    "merge_needs_halves",
    "queue_order",
    "end_needs_running",
    "fail_needs_running",
    "line_fits",
    "one_wait",
    "settle_needs_wait",
    "settle_needs_summaries",
    "timeout_needs_wait",
    "zoom",
)
"""Every rule of SPEC 4.1 a scenario can break under SPEC's own profile
(`self_starts` needs `calls: self`, under which no start is sent)."""

SMALL_CHAT = Chat(dict.fromkeys(KINDS, ((5, 0, 40), (4, 60, 200), (1, 200, 600))), CHAT_NEXT, 3, 3)
"""Short chats at NODE 64: free leaves, leaves that need a call, a few long ones."""


SMALL_LATE = "late: 250 outcomes in 1000 fail, 100 nodes in 1000 fail every time"
"""The compactor of the refusal families (`Late(rng, 250, 100, 8)`)."""


ACCEPTED = (8, 4)
"""CEILING and FLOOR at least this many times NODE: what common engines
accept (a JavaScript engine refuses less; bridge/PROTOCOL.md, "Constants an
engine accepts"). The refusal and `both` families are made within it: what
they test is which rule an event breaks, and every rule of SPEC 4.1 can be
broken at such budgets, so none needs a smaller one (the rules on batches,
`need_first`, `merge_needs_halves`, `ahead_bound` and
`settle_needs_summaries`, need a view past CEILING or unbuilt lines, which a
chat of a dozen short messages reaches at CEILING 8 x NODE as well)."""

ACCEPTED_BUDGETS = (
    f"small, CEILING >= {ACCEPTED[0]} x NODE and FLOOR >= {ACCEPTED[1]} x NODE, see constants"
)
"""The refusal and `both` families' `budgets` note (ACCEPTED)."""


def small_constants(rng: Generator, accepted: bool = False) -> Constants:
    """Budgets of a few lines, so that batches, shrinking views, ready merges
    beyond the queue's room and the FAILURES cap come within a hundred events;
    FAILURES at least 2, so that a failed node waits for its retry. With
    `accepted`, CEILING and FLOOR within ACCEPTED."""
    node = 64
    least_ceiling, least_floor = (ACCEPTED[0] * node, ACCEPTED[1] * node) if accepted else (300, 0)
    ceiling = int(rng.integers(least_ceiling, 1_200))
    return replace(
        DEFAULTS,
        node=node,
        ceiling=ceiling,
        floor=int(rng.integers(max(ceiling // 4, least_floor), ceiling)),
        cceiling=ceiling // 2,
        cfloor=ceiling // 4,
        jobs=int(rng.integers(1, 4)),
        ahead=int(rng.integers(1, 4)),
        tries=int(rng.integers(1, 6)),
        failures=int(rng.integers(2, 4)),
    )


def probes(run: Run, rule: str) -> Iterator[tuple[Event, dict[str, Any]]]:
    """Events that may break `rule` in the run's state, each with its record:
    the model says which rule each one breaks."""
    state, node = run.state, run.constants.node
    t = bits.to_int(state.count)
    if rule in ("kind", "utf8"):
        yield Message("bot", "hi"), {"event": "message", "kind": "bot", "text": "hi"}
        yield Message("user", "a\ud800"), {"event": "message", "kind": "user", "text": "a\ud800"}
    elif rule in ("end_needs_running", "fail_needs_running", "line_fits"):
        for n in state.queue.running:
            yield End(n, ""), {"event": "end", "node": node_list(n), "size": 0}
            line = "x" * (node + 1)
            yield End(n, line), {"event": "end", "node": node_list(n), "size": node + 1}
        for level in range(3):
            n = Node(level, bits.from_int(max(0, (t >> level) - 1)))
            yield End(n, "x"), {"event": "end", "node": node_list(n), "line": "x"}
            yield Fail(n), {"event": "fail", "node": node_list(n)}
    elif rule in ("one_wait", "settle_needs_wait", "settle_needs_summaries", "timeout_needs_wait"):
        yield Wait(), {"event": "wait"}
        yield Settle(), {"event": "settle"}
        yield Timeout(), {"event": "timeout"}
    elif rule == "zoom":
        for id, n in ((0, 3), (1, 2), (t, 1), (t + 2, 2), (0, 0), (4, 8)):
            yield Zoom(bits.from_int(id), bits.from_int(n)), {"event": "zoom", "id": id, "n": n}
    else:
        for level in range(4):
            for index in range((t >> level) + 2):
                n = Node(level, bits.from_int(index))
                yield Start(n), {"event": "start", "node": node_list(n)}


def breaks(state: machine.State, event: Event) -> str | None:
    """The rule the model names for `event`, or None if it takes it."""
    try:
        machine.step(state, event)
    except Refused as refused:
        return refused.rule
    return None


def wander(run: Run, chat: Chat, late: Late) -> None:
    """One legal step of a short chat: a message, a compactor action, or a turn."""
    state = run.state
    choice = pick(run.rng, {"message": 4, "act": 6, "turn": 1})
    if choice == "act" and late.act(run):
        return
    if choice == "turn":
        if not state.queue.waiting:
            run.wait()
        elif machine.settled(state):
            run.settle()
        else:
            run.timeout()
        return
    kind = pick(run.rng, {k: 1 for k in KINDS})
    run.message(kind, draw_size(run.rng, chat.sizes[kind]))


def refusal(rule: str, number: int) -> Scenario:
    """A short chat at small budgets that breaks `rule` at least three times,
    each breaking event marked with the rule (SPEC 4.1). Each scenario of a
    rule has its own seed and constants."""
    seed = 10_000 + 100 * RULES.index(rule) + number
    rng = Generator(PCG64(seed))
    run = Run(small_constants(rng, accepted=True), seed, rng)
    late = Late(rng, fail_permille=250, stuck_permille=100, fast=8)
    broken = 0
    while len(run.events) < 600 and (broken < 3 or len(run.events) < 120):
        if rng.integers(3) == 0:
            found = [p for p in probes(run, rule) if breaks(run.state, p[0]) == rule]
            if found:
                event, record = found[int(rng.integers(len(found)))]
                run.refuse(event, record, rule)
                broken += 1
                continue
        wander(run, SMALL_CHAT, late)
    if broken < 3:
        raise GenerationError(f"refused_{rule}_{number}: {rule} broken only {broken} times")
    return run.scenario(
        {
            "family": "refused",
            "rule": rule,
            "budgets": ACCEPTED_BUDGETS,
            "compactor": SMALL_LATE,
            "refusals": broken,
        }
    )


PAIRS = (
    ("kind", "utf8"),
    ("node_exists", "need_first"),
    ("node_exists", "jobs_bound"),
    ("node_exists", "ahead_bound"),
    ("node_exists", "merge_needs_halves"),
    ("built_once", "need_first"),
    ("built_once", "jobs_bound"),
    ("built_once", "ahead_bound"),
    ("one_call_per_node", "jobs_bound"),
    ("need_first", "jobs_bound"),
    ("need_first", "retry_waits"),
    ("need_first", "merge_needs_halves"),
    ("jobs_bound", "retry_waits"),
    ("jobs_bound", "ahead_bound"),
    ("jobs_bound", "merge_needs_halves"),
    ("end_needs_running", "utf8"),
    ("end_needs_running", "line_fits"),
    ("utf8", "line_fits"),
    ("settle_needs_wait", "settle_needs_summaries"),
)
"""The pairs of rules of SPEC 4.1 one event can break together, and no other
rule, under SPEC's own profile, the first in the table's order first. The
others cannot meet: `queue_order` is what a start breaking no other rule
breaks; a node's call runs only while it exists unbuilt and, being unbuilt,
it stays a line of the view (no `need_first`), holds both halves (no
`merge_needs_halves`), is no held node and, as a leaf, started within AHEAD
and stays within it (no `ahead_bound`); a held node exists unbuilt, within
AHEAD, with its halves; a built node's call neither runs nor is held; and
an unbuilt leaf is a line of the view. (`ahead_in_wait: false` lets a leaf
start beyond AHEAD while a turn waits, so that it may run or be held beyond
it afterwards; the corpus keeps no profile with that option and driven
calls.)"""


def broken_rules(state: machine.State, event: Event) -> tuple[str, ...]:
    """Every rule of SPEC 4.1 `event` breaks in `state`, in the table's
    order, each read from the table's own words (not from the model's
    checks); `queue_order` and rules of the events no pair holds are left
    out."""
    q, c, t = state.queue, state.constants, state.count
    if isinstance(event, Message):
        found = {"kind": event.kind not in KINDS, "utf8": not _is_utf8(event.text)}
    elif isinstance(event, End):
        line = str(event.line)
        size = len(line.encode("utf-8", "surrogatepass"))
        found = {
            "end_needs_running": event.node not in q.running,
            "utf8": not _is_utf8(line),
            "line_fits": not 1 <= size <= c.node,
        }
    elif isinstance(event, Settle):
        found = {
            "settle_needs_wait": not q.waiting,
            "settle_needs_summaries": not machine.settled(state),
        }
    elif isinstance(event, Start):
        node = event.node
        exists = not bits.less(t, nodes.end(node))
        leaves_before = sum(1 for leaf in q.unbuilt if bits.less(leaf.index, node.index))
        found = {
            "node_exists": not exists,
            "built_once": machine.text(state, node) is not None,
            "one_call_per_node": node in q.running,
            "need_first": q.waiting and node not in machine.view(state),
            "jobs_bound": len(q.running) >= c.jobs,
            "retry_waits": node in q.held,
            "ahead_bound": node.level == 0 and leaves_before >= c.ahead,
            "merge_needs_halves": node.level > 0
            and not all(machine.text(state, half) is not None for half in nodes.halves(node)),
        }
    else:
        return ()
    return tuple(rule for rule, broken in found.items() if broken)


def _is_utf8(text: str) -> bool:
    """Whether `text` has a UTF-8 form: it holds no surrogate code point (SPEC 1)."""
    return not any("\ud800" <= c <= "\udfff" for c in text)


def pair_probes(run: Run) -> Iterator[tuple[Event, dict[str, Any]]]:
    """Events that may break two rules at once in the run's state, each with
    its record: unknown kinds with text that has no UTF-8 form, ends with
    lines of no UTF-8 form, empty or too long, settles, and starts."""
    node = run.constants.node
    yield Message("bot", "a\ud800"), {"event": "message", "kind": "bot", "text": "a\ud800"}
    yield Settle(), {"event": "settle"}
    t = bits.to_int(run.state.count)
    ends = list(run.state.queue.running)
    ends += [Node(level, bits.from_int(max(0, (t >> level) - 1))) for level in range(2)]
    for n in ends:
        for line in ("a\ud800", "x" * node + "\ud800", ""):
            yield End(n, line), {"event": "end", "node": node_list(n), "line": line}
    for level in range(4):
        for index in range((t >> level) + 2):
            n = Node(level, bits.from_int(index))
            yield Start(n), {"event": "start", "node": node_list(n)}


def both(first: str, second: str) -> Scenario:
    """A short chat at small budgets that reaches, at least twice, a state
    where one event breaks both `first` and `second` (and no other rule),
    and sends it, marked with `first`: SPEC 4.1 names the first rule of its
    order. The first seed of the pair whose chat gets there is kept."""
    for attempt in range(40):
        seed = 40_000 + 100 * PAIRS.index((first, second)) + attempt
        rng = Generator(PCG64(seed))
        run = Run(small_constants(rng, accepted=True), seed, rng)
        late = Late(rng, fail_permille=250, stuck_permille=100, fast=8)
        broken = 0
        while len(run.events) < 400 and broken < 2:
            found = [
                p for p in pair_probes(run) if broken_rules(run.state, p[0]) == (first, second)
            ]
            if found:
                event, record = found[int(rng.integers(len(found)))]
                run.refuse(event, record, first)
                broken += 1
            wander(run, SMALL_CHAT, late)
        if broken == 2:
            return run.scenario(
                {
                    "family": "both",
                    "rules": [first, second],
                    "budgets": ACCEPTED_BUDGETS,
                    "compactor": SMALL_LATE,
                    "refusals": broken,
                }
            )
    raise GenerationError(f"both_{first}_{second}: no seed reached an event breaking both")


def chooser(number: int) -> Scenario:
    """Calls that end with the replies they got (SPEC 5): over-long replies,
    fitting ones, empty ones, and follow-ups exactly as long as the one
    before; the engine chooses each line. Every fourth reply, and the line
    of every eighth end (given, not chosen), ends in a character the named
    sets of white space disagree on (SPEC 3.6), the reply with it between
    its words too, where a word cut backs up to it."""
    seed = 20_000 + number
    rng = Generator(PCG64(seed))
    constants = replace(random_constants(rng), node=(64, 128, 512)[number % 3])
    run = Run(constants, seed, rng)
    run.replies = True
    late = Late(rng, fail_permille=100, stuck_permille=20, fast=16)
    talk(run, Chat(CHAT_SIZES, CHAT_NEXT, 4, 3), 300, late)
    return run.scenario(
        {
            "family": "chooser",
            "budgets": "random, see constants",
            "compactor": "late; calls end with up to TRIES + 2 replies, one in eight with a line",
        }
    )


def zooms(number: int) -> Scenario:
    """A chat zoomed into after messages (SPEC 3.5): whole messages, nodes
    opened one level, and zooms refused (not a power of two, not a multiple,
    not all logged)."""
    seed = 30_000 + number
    rng = Generator(PCG64(seed))
    run = Run(small_constants(rng), seed, rng)
    run.zoom(0, 1)

    def look(run: Run) -> None:
        t = bits.to_int(run.state.count)
        for _ in range(int(run.rng.integers(0, 3))):
            n = 1 << int(run.rng.integers(0, max(1, t.bit_length())))
            id = int(run.rng.integers(0, t + 1)) // n * n
            if run.rng.integers(5) == 0:
                id, n = (id + 1, n) if n > 1 else (id, 3)
            run.zoom(id, n)

    run.after_message = look
    late = Late(rng, fail_permille=100, stuck_permille=20, fast=8)
    talk(run, SMALL_CHAT, 150, late)
    return run.scenario({"family": "zoom", "budgets": "small, see constants"})


def flat_texts(number: int) -> Scenario:
    """A chat whose texts hold no line break (each of FILLER's a space), all
    given in full: an engine that installs or measures lines flattened
    differently, which the `\r\n` of every other family shows at the first
    sized text, is still checked here on everything else (SPEC 3.3, 4).
    NODE 64, 128 or 512, budgets a few NODEs, sizes up to 8 NODE, a late
    compactor."""
    seed = 30_000 + number
    rng = Generator(PCG64(seed))
    node = (64, 128, 512)[number % 3]
    constants = replace(
        random_constants(rng),
        node=node,
        ceiling=16 * node,
        floor=8 * node,
        cceiling=8 * node,
        cfloor=4 * node,
    )
    buckets = ((6, 1, node), (3, node + 1, 4 * node), (1, 4 * node, 8 * node))
    chat = Chat(dict.fromkeys(KINDS, buckets), CHAT_NEXT, 4, 3, 5)
    run = Run(constants, seed, rng)
    run.flat = True
    talk(run, chat, 200, Late(rng, fail_permille=100, stuck_permille=20, fast=16))
    return run.scenario(
        {
            "family": "flat",
            "budgets": f"chat {16 * node}/{8 * node}, compaction {8 * node}/{4 * node}",
            "sizes": [list(bucket) for bucket in buckets],
            "compactor": "late; texts given in full, with no line break",
        }
    )


def empty_chat() -> Scenario:
    """No event at all: the empty chat's render (SPEC 3) at the final detail request."""
    return Run(DEFAULTS, 0).scenario({"family": "empty"})


def corpus() -> dict[str, Callable[[], Scenario]]:
    """Every scenario of the corpus by file name, after eukhe's bridge."""
    recipes: dict[str, Callable[[], Scenario]] = {
        "steady_3000": partial(steady, 3_000),
        "deep_4000_6000": partial(deep, 6_000, 3_000, 4_000, seed=4_006),
        "deep_4000_2000": partial(deep, 2_000, 1_000, 4_000, seed=4_002),
        "late_1500": partial(late, 16_000, 8_000, 1_500, seed=1_500),
        "late_2500": partial(late, 32_000, 16_000, 2_500, seed=2_500),
    }
    recipes.update({f"random_{k:02d}": partial(randomized, k) for k in range(24)})
    for rule in RULES:
        recipes.update({f"refused_{rule}_{k}": partial(refusal, rule, k) for k in range(3)})
    recipes.update(
        {f"both_{first}_{second}": partial(both, first, second) for first, second in PAIRS}
    )
    recipes.update({f"chooser_{k}": partial(chooser, k) for k in range(3)})
    recipes.update({f"zoom_{k}": partial(zooms, k) for k in range(3)})
    recipes.update({f"flat_{k}": partial(flat_texts, k) for k in range(3)})
    recipes["empty_chat"] = empty_chat
    return recipes


class GenerationError(RuntimeError):
    """A generated scenario lacks what its family is for."""


def check(name: str, scenario: Scenario) -> None:
    """Every scenario has turns that wait, settle and time out (SPEC 4); a late
    one has batches that stop above FLOOR merging nothing and views that
    later reach FLOOR (SPEC 3.3)."""
    notes = scenario.notes
    if notes["family"] not in ("steady", "deep", "late", "random", "flat"):
        return
    for event in ("wait", "settle", "timeout"):
        if notes["events"][event] == 0:
            raise GenerationError(f"{name}: no {event} event")
    if notes["family"] == "late" and not (
        notes["shrinking_without_merge"] and notes["shrinking_ended"]
    ):
        raise GenerationError(f"{name}: no batch stopped above FLOOR and later finished")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the scenario corpus.")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "corpus")
    parser.add_argument("--only", help="a scenario name or a glob, e.g. 'random_*'")
    args = parser.parse_args(argv)
    chosen = {
        n: r for n, r in corpus().items() if args.only is None or fnmatch.fnmatch(n, args.only)
    }
    if not chosen:
        parser.error(f"no scenario is named {args.only!r}; names: {', '.join(corpus())}")
    for name, recipe in chosen.items():
        began = time.perf_counter()
        scenario = recipe()
        check(name, scenario)
        scenario_format.write(scenario, args.out / f"{name}.jsonl")
        print(
            f"{name}: {len(scenario.events)} events in {time.perf_counter() - began:.1f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
