"""Comparing an engine with what is expected, answer by answer, as the
answers arrive: the first diverging line and field, the two states there
side by side (bridge/checking/shrink.py makes a shrunk scenario that still
diverges). Under `--keep-going` a difference that can be adopted is taken
into the model's state and the comparison goes on past it, every event
after it counted as compared after adoption (bridge/checking/adopt.py says
what can be, and why the comparisons after it still mean what they say)."""

from __future__ import annotations

import difflib
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from bridge.checking.adopt import ADOPTABLE, Adopting, Shadow
from bridge.checking.coverage import Coverage
from bridge.checking.shown import ABSENT, as_json, clipped, difference, safe
from bridge.checking.starts import wrong_start
from bridge.formats.capabilities import CAPABILITIES, GIVEN, Capability, gives_lines, ignored_fields
from bridge.formats.invocation import command
from bridge.formats.sections import cited
from bridge.wire.engine import Engine, EngineFault, Ready
from bridge.wire.inprocess import ModelEngine
from bridge.wire.observe import ORDER
from bridge.wire.stream import DETAIL_REQUEST, Exchange
from scenarios.format import Scenario

MISSING = object()


def first_difference(
    expected: dict[str, Any],
    found: dict[str, Any],
    fields: tuple[str, ...] | None,
    rules: bool,
    ignored: Collection[str] = (),
) -> str | None:
    """The first field (in `ORDER`) in which an answer differs from the expected
    one, or None. `fields` limits the comparison to what an engine's protocol
    gives, `ignored` leaves out the fields of capabilities it lacks; without
    `rules` a refusal is compared as a fact, not by its rule. Fields an
    engine adds whose names start with `x-` are its own."""
    if (
        fields is None
        and rules
        and not ignored
        and expected == found
        and type(found.get("shrinking", False)) is bool
    ):
        return None
    for name in ORDER:
        if (fields is not None and name not in fields) or name in ignored:
            continue
        a, b = expected.get(name, MISSING), found.get(name, MISSING)
        if name == "refused" and not rules:
            a, b = a is not MISSING, b is not MISSING
        if a != b or (name == "shrinking" and b is not MISSING and type(b) is not bool):
            return name
    extra = sorted(k for k in found if k not in ORDER and not k.startswith("x-"))
    return extra[0] if extra and fields is None else None


def show(value: Any, limit: int = 300) -> str:
    """A value as JSON (bridge/checking/shown.py), cut after `limit` characters."""
    return ABSENT if value is MISSING else clipped(value, limit)


def shown_event(event: dict[str, Any] | None) -> str:
    """An event as its scenario file's JSON writes it, without its texts
    (`text`, `line`, `replies`) and the position the bridge adds (`at`)."""
    left_out = ("text", "line", "replies", "at")
    return as_json({k: v for k, v in (event or {}).items() if k not in left_out})


@dataclass
class Divergence:
    """Where an engine's answers first differ from the expected ones."""

    index: int
    """Which line the bridge sent (0-based)."""
    position: int | None
    """The event's position in the scenario; None at the final detail request."""
    event: dict[str, Any] | None
    field: str
    expected: Any
    found: Any
    lines: list[dict[str, Any]] = field(default_factory=list)
    """The lines sent up to and including the diverging one."""
    later: int = 0
    """How many later answers differed too in what was adopted (bridge/checking/adopt.py)."""
    states: tuple[dict[str, Any], dict[str, Any]] | None = None
    """The whole state of each side there, when it could be had."""
    why: str | None = None
    """What is wrong with the engine's answer, in SPEC's words, when the bridge can say."""
    not_compared: frozenset[str] = frozenset()
    """The fields of the capabilities the engine lacks: left out of `states`."""
    adopted: bool = False
    """Whether the replay adopted the engine's value there and went on
    (bridge/checking/adopt.py)."""
    after_adoption: bool = False
    """Whether it was met after an adoption (then it could not be adopted)."""
    answer: dict[str, Any] | None = None
    """The engine's whole answer there (bridge/checking/slips.py explains a FAIL with it)."""

    def where(self) -> str:
        if self.position is None:
            return "the final detail request"
        return f"event {self.position} (file line {self.position + 2}): {shown_event(self.event)}"

    def difference(self, limit: int = 80) -> str:
        """Both values where they first differ (bridge/checking/shown.py)."""
        return difference(self.expected, self.found, limit, MISSING)

    def summary(self) -> str:
        """Where, which field, both values where they first differ, and the
        SPEC section that says what the field must be: one line."""
        return f"{self.where()}: {safe(self.field)} differs, {self.difference()} ({self.spec()})"

    def spec(self) -> str:
        """The SPEC section of the field (for `refused`, the rule either side names)."""
        rule = self.expected if isinstance(self.expected, str) else self.found
        return cited(self.field, rule)

    def report(self, path: str, names: tuple[str, str]) -> str:
        head = "DIVERGENCE AFTER ADOPTION" if self.after_adoption else "DIVERGENCE"
        lines = [
            f"{head} in {path}, at {self.where()}",
            f"  field {self.field!r} ({self.spec()}): {self.difference(160)}",
            f"  {names[0]}: {show(self.expected)}",
            f"  {names[1]}: {show(self.found)}",
        ]
        if self.why:
            lines.append(f"  {self.why}")
        if self.adopted:
            lines.append("  adopted: the replay took the engine's value and went on")
        if self.later:
            lines.append(f"  and {self.later} later answers differ too, in what was adopted")
        if self.states is not None:
            lines += explain_states(*self.states, names)
        return "\n".join(lines)


def split_lines(text: str) -> list[str]:
    """A render's lines: split at `\\n` only, so that a lone `\\r` or U+2028 the
    render should have flattened shows in the diff instead of splitting it."""
    return text.split("\n")


def explain_states(a: dict[str, Any], b: dict[str, Any], names: tuple[str, str]) -> list[str]:
    """The two whole states side by side: views and renders as diffs."""
    out: list[str] = []
    for key in ("view", "cview"):
        if a.get(key) != b.get(key):
            left = [f"{level}:{index}" for level, index in a.get(key, [])]
            right = [f"{level}:{index}" for level, index in b.get(key, [])]
            diff = difflib.unified_diff(left, right, names[0], names[1], lineterm="", n=1)
            out += [f"  {key} ([level, index], oldest first):", *("    " + d for d in diff)]
    for key in ("render", "render_timed_out"):
        text_a, text_b = a.get(key), b.get(key)
        if not (isinstance(text_a, str) and isinstance(text_b, str)):
            continue
        diff = difflib.unified_diff(
            split_lines(text_a), split_lines(text_b), names[0], names[1], lineterm=""
        )
        shown = ["    " + as_json(d)[1:-1] for d in diff]
        out += [f"  {key}:", *shown] if shown else [f"  {key}: equal"]
    if a.get("contexts") != b.get("contexts"):
        out.append(f"  contexts differ ({command()} replay shows them in full)")
    return out


@dataclass
class Result:
    """One replay compared: the first divergence (None when it agreed), the
    lines sent, the positions of the events sent (and of those not sent for
    a capability the engine lacks), an engine that said it does not support
    something, and what was compared."""

    divergence: Divergence | None = None
    answers: int = 0
    sent: set[int] = field(default_factory=set)
    withheld: set[int] = field(default_factory=set)
    refused: dict[int, str] = field(default_factory=dict)
    """The positions of the events sent that the model refuses, each with
    the rule it names (SPEC 4.1)."""
    unsupported: str | None = None
    unsupported_at: Divergence | None = None
    """Where the engine said it does not support something: the line, as a
    divergence in the field `unsupported` (what it said as found)."""
    coverage: Coverage = field(default_factory=Coverage)
    lacks: tuple[Capability, ...] = ()
    """The capabilities the engine lacks, whose fields were not compared."""
    after: Divergence | None = None
    """The first difference met after an adoption that could not be adopted
    (bridge/checking/adopt.py): a divergence after adoption."""
    past: list[Past] = field(default_factory=list)
    """The answers read past the first divergence of a replay that stops
    there (`run`'s `past`), for judging a rule slip beyond it
    (bridge/checking/slips.py): never compared."""


Past = tuple[dict[str, Any], dict[str, Any], dict[str, Any]]
"""An answer read past a divergence: the line sent (an event as sent, or
the final detail request), the answer expected there, the engine's."""


def expected_fields(exchange: Exchange, keys: dict[str, bytes]) -> list[str]:
    """Which of the fields `keys` names (each with its key as compact JSON
    writes it) the expected answer has, read without parsing a transcript's
    bytes: a key's quotes are escaped inside any string there."""
    if exchange.parsed is None and exchange.answer is not None:
        return [name for name, key in keys.items() if key in exchange.answer]
    return [name for name in keys if name in exchange.expected]


TWINS = {"render_timed_out": "render", "render_timed_out_crc": "render_crc"}
"""Fields an engine without their capability may answer with another's
value (the Rust engine of issue 40 answers a timed-out render with its
plain render)."""


def telling(expected: dict[str, Any], name: str) -> bool:
    """Whether an answer right in field `name` tells that the engine has
    what the field needs: a field with a twin (`TWINS`) only where the
    answer holds the twin at another value."""
    twin = TWINS.get(name)
    return twin is None or (twin in expected and expected[twin] != expected[name])


def rightly(exchange: Exchange, lacks: tuple[Capability, ...]) -> set[str]:
    """The capabilities not in `lacks` that an answer equal to the expected
    one got right: one owning a field the answer holds where it tells
    (`telling`); one owning none, at one of its events (`replies`: an
    `end` with replies)."""
    lacked = {c.name for c in lacks}
    kind = exchange.line.get("event")
    expected = exchange.expected
    out = set()
    for c in CAPABILITIES:
        if c.name in lacked:
            continue
        if c.fields:
            if any(f in expected and telling(expected, f) for f in c.fields):
                out.add(c.name)
        elif kind in c.events and (c.handling != GIVEN or "replies" in exchange.line):
            out.add(c.name)
    return out


def run(
    exchanges: Iterable[Exchange],
    engine: Engine,
    ready: Ready,
    fields: tuple[str, ...] | None = None,
    keep_going: bool = False,
    progress: Callable[[int], None] = lambda _: None,
    lacks: tuple[Capability, ...] = (),
    coverage: Coverage | None = None,
    adopting: Adopting | None = None,
    right: set[str] | None = None,
    past: int = 0,
) -> Result:
    """Send each exchange's line to a started engine, up to its window ahead
    of the answers, and compare each answer with the expected one as it
    arrives, leaving out the fields of the capabilities it `lacks`; stop at
    the first divergence unless `keep_going` (every answer is then read).
    Given `adopting` (bridge/checking/adopt.py), a difference that can be
    adopted is taken into the model's state and the replay goes on, the
    expected answers from then on the model's; it stops at the first
    difference that cannot be. What was compared is counted in `coverage`:
    the events whose answers were read while the model's state and the
    engine's were together, and of those the ones after an adoption; the
    capabilities held that an answer got right are added to `right`, when
    given (`rightly`). A replay that stops at its divergence reads up to
    `past` more answers first, kept in `result.past`, never compared nor
    counted: an engine that faults or says unsupported there ends them."""
    result = Result(coverage=coverage or Coverage(), lacks=lacks)
    counted = result.coverage
    pending: deque[Exchange] = deque()
    sent: list[dict[str, Any]] = []
    owner = ignored_fields(lacks)
    keys = {name: f'"{name}":'.encode() for name in owner}
    engine.excused = frozenset(owner)
    if adopting is not None and gives_lines(lacks):
        adopting = None  # the model reads replies the engine is not sent: no shadow follows it
    shadow: Shadow | None = None
    together = True
    """Whether the model's state and the engine's have not parted."""
    read = 0

    def count_fields(exchange: Exchange) -> None:
        left_out = Counter(owner[name] for name in expected_fields(exchange, keys))
        counted.fields += left_out
        counted.answers += Counter(left_out.keys())

    def diverged(
        exchange: Exchange, expected: dict[str, Any], answer: dict[str, Any], name: str
    ) -> Divergence:
        index = result.answers - 1
        return Divergence(
            index,
            exchange.position,
            exchange.line if exchange.position is not None else None,
            name,
            expected.get(name, MISSING),
            answer.get(name, MISSING),
            sent[: index + 1],
            not_compared=frozenset(owner),
            answer=answer,
        )

    def adopted(exchange: Exchange, answer: dict[str, Any], name: str, first: bool) -> bool:
        """Whether the difference in `name` was adopted, the rest of the
        answer agreeing once it was; a first divergence is kept either way,
        and one after an adoption that cannot be is `result.after`."""
        nonlocal shadow
        if adopting is None or exchange.position is None or name not in ADOPTABLE:
            return False
        if shadow is None:
            shadow = adopting(sent[: result.answers - 1])
            shadow.answer(exchange.line)
        expected = shadow.expected
        again = shadow.adopt(exchange.line, expected, answer)
        if again is None:
            return False
        left = first_difference(again, answer, fields, ready.rule_names, owner)
        if left is not None:
            if not first:
                result.after = replace(diverged(exchange, again, answer, left), after_adoption=True)
            return False
        counted.adoptions += Counter(
            f for f in ADOPTABLE if f not in owner and expected.get(f) != answer.get(f)
        )
        return True

    def check() -> bool:
        """Read the next answer; whether the replay goes on after it. Its
        exchange stays pending until the answer is read: an event whose
        answer never came (the engine died or hung) was not compared."""
        nonlocal together, read
        exchange = pending[0]
        if beyond():
            return read_past()
        answer = engine.receive_unless(None if shadow is not None else exchange.answer)
        pending.popleft()
        if together and exchange.position is not None:
            read += 1
            counted.adopted += shadow is not None
        result.answers += 1
        progress(result.answers)
        if owner:
            count_fields(exchange)
        if answer is None:
            return True
        if "unsupported" in answer:
            result.unsupported = str(answer["unsupported"])
            read -= exchange.position is not None
            counted.adopted -= shadow is not None and exchange.position is not None
            result.unsupported_at = Divergence(
                result.answers - 1,
                exchange.position,
                exchange.line if exchange.position is not None else None,
                "unsupported",
                MISSING,
                result.unsupported,
                sent[: result.answers],
            )
            return False
        if not together:
            return True  # the states parted: an answer read, not compared
        expected = exchange.expected if shadow is None else shadow.answer(exchange.line)
        name = first_difference(expected, answer, fields, ready.rule_names, owner)
        if name is None:
            if right is not None:
                right.update(rightly(exchange, lacks))
            return True
        found = result.divergence
        first = found is None
        if found is None:
            found = result.divergence = diverged(exchange, expected, answer, name)
        if adopted(exchange, answer, name, first):
            if first:
                found.adopted = True
                counted.adopted += 1
            else:
                found.later += 1
            return True
        if not first and result.after is None:
            result.after = replace(diverged(exchange, expected, answer, name), after_adoption=True)
        together = False
        return keep_going or past > 0

    def beyond() -> bool:
        """Whether the replay stopped at its divergence and reads past it."""
        return not together and not keep_going

    def read_past() -> bool:
        """Read one answer past the divergence into `result.past`; whether to read another."""
        exchange = pending.popleft()
        try:
            answer = engine.receive_unless(exchange.answer)
        except EngineFault:
            return False
        answer = exchange.expected if answer is None else answer
        if "unsupported" in answer:
            return False
        result.past.append((exchange.line, exchange.expected, answer))
        return len(result.past) < past

    def finish(stopped: bool) -> Result:
        """Count the events whose answers were read while the states were
        together (not the ones still waiting for an answer when the replay
        stopped, nor those read after a difference not adopted)."""
        counted.compared += read
        counted.stopped = stopped or not together
        return result

    try:
        for exchange in exchanges:
            if beyond() and len(result.past) + len(pending) >= past:
                break
            if exchange.lacking is not None:
                if not exchange.sent:
                    assert exchange.position is not None
                    counted.not_sent[exchange.lacking] += 1
                    result.withheld.add(exchange.position)
                    continue
                counted.given[exchange.lacking] += 1
            engine.send(exchange.line, exchange.wire)
            sent.append(exchange.line)
            if exchange.position is not None and not beyond():
                result.sent.add(exchange.position)
                if exchange.refused:
                    result.refused[exchange.position] = exchange.expected["refused"]
            pending.append(exchange)
            if len(pending) >= engine.window and not check():
                return finish(True)
        while pending:
            if not check():
                return finish(True)
    except EngineFault:
        finish(True)
        if beyond():
            return result  # past the divergence: what was read stands
        raise
    except BaseException:
        finish(True)  # an engine fault: what was read before it counts
        raise
    return finish(False)


def state_after(engine: Engine, scenario: Scenario, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """An engine's whole state after the given lines: they are sent again to
    a fresh replay, then the detail request."""
    engine.start(scenario)
    try:
        for line in lines:
            if "event" in line:
                engine.send(line)
                engine.receive()
        engine.send(DETAIL_REQUEST)
        return engine.receive()
    finally:
        engine.close()


def compared(state: dict[str, Any], divergence: Divergence) -> dict[str, Any]:
    """A whole state without the fields that were not compared: a report
    shows no difference in what the engine need not give."""
    return {k: v for k, v in state.items() if k not in divergence.not_compared}


def add_states(divergence: Divergence, scenario: Scenario, expected: Engine, found: Engine) -> None:
    """Fill in both sides' whole states at the divergence, if both can give
    them; for a wrong start under `calls: self`, the rule it breaks."""
    if divergence.field == "started" and isinstance(expected, ModelEngine):
        started = [] if divergence.found is MISSING else divergence.found
        divergence.why = wrong_start(scenario, expected.profile, divergence.lines, started)
    try:
        divergence.states = (
            compared(state_after(expected, scenario, divergence.lines), divergence),
            compared(state_after(found, scenario, divergence.lines), divergence),
        )
    except Exception:  # the engine failing again must not hide the divergence itself
        divergence.states = None
