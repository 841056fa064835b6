"""Comparing an engine with what is expected, answer by answer, as the
answers arrive: the first diverging line and field, the two states there
side by side (bridge/checking/shrink.py makes a shrunk scenario that still
diverges)."""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from bridge.wire.engine import Engine, Ready
from bridge.wire.observe import ORDER
from bridge.wire.stream import DETAIL_REQUEST, Exchange
from scenarios.format import Scenario

MISSING = object()


def first_difference(
    expected: dict[str, Any], found: dict[str, Any], fields: tuple[str, ...] | None, rules: bool
) -> str | None:
    """The first field (in `ORDER`) in which an answer differs from the expected
    one, or None. `fields` limits the comparison to what an engine's protocol
    gives; without `rules` a refusal is compared as a fact, not by its rule.
    Fields an engine adds whose names start with `x-` are its own."""
    if (
        fields is None
        and rules
        and expected == found
        and type(found.get("shrinking", False)) is bool
    ):
        return None
    for name in ORDER:
        if fields is not None and name not in fields:
            continue
        a, b = expected.get(name, MISSING), found.get(name, MISSING)
        if name == "refused" and not rules:
            a, b = a is not MISSING, b is not MISSING
        if a != b or (name == "shrinking" and b is not MISSING and type(b) is not bool):
            return name
    extra = sorted(k for k in found if k not in ORDER and not k.startswith("x-"))
    return extra[0] if extra and fields is None else None


def show(value: Any, limit: int = 300) -> str:
    if value is MISSING:
        return "(absent)"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


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
    """How many later answers diverged too (with `keep_going`)."""
    states: tuple[dict[str, Any], dict[str, Any]] | None = None
    """The whole state of each side there, when it could be had."""

    def where(self) -> str:
        if self.position is None:
            return "the final detail request"
        shown = {
            k: v for k, v in (self.event or {}).items() if k not in ("text", "line", "replies")
        }
        return f"event {self.position} (file line {self.position + 2}): {shown}"

    def summary(self) -> str:
        return f"{self.where()}: field {self.field!r} differs"

    def report(self, path: str, names: tuple[str, str]) -> str:
        lines = [
            f"DIVERGENCE in {path}, at {self.where()}",
            f"  field {self.field!r}",
            f"  {names[0]}: {show(self.expected)}",
            f"  {names[1]}: {show(self.found)}",
        ]
        if self.later:
            lines.append(f"  and {self.later} later answers diverge too")
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
        shown = ["    " + repr(d)[1:-1] for d in diff]
        out += [f"  {key}:", *shown] if shown else [f"  {key}: equal"]
    if a.get("contexts") != b.get("contexts"):
        out.append("  contexts differ (python -m bridge replay shows them in full)")
    return out


@dataclass
class Result:
    """One replay compared: the first divergence (None when it agreed), the
    lines sent, the positions of the events sent, and an engine that said
    it does not support something."""

    divergence: Divergence | None = None
    answers: int = 0
    sent: set[int] = field(default_factory=set)
    refused: set[int] = field(default_factory=set)
    """The positions of the events sent that the model refuses."""
    unsupported: str | None = None
    finished: bool = False
    """Whether every line was sent and answered (no stop at a divergence)."""


def run(
    exchanges: Iterable[Exchange],
    engine: Engine,
    ready: Ready,
    fields: tuple[str, ...] | None = None,
    keep_going: bool = False,
    progress: Callable[[int], None] = lambda _: None,
) -> Result:
    """Send each exchange's line to a started engine, up to its window ahead
    of the answers, and compare each answer with the expected one as it
    arrives; stop at the first divergence unless `keep_going`."""
    result = Result()
    pending: deque[Exchange] = deque()
    sent: list[dict[str, Any]] = []

    def check(exchange: Exchange) -> bool:
        """Read the next answer; whether the replay goes on after it."""
        answer = engine.receive_unless(exchange.answer)
        result.answers += 1
        progress(result.answers)
        if answer is None:
            return True
        if "unsupported" in answer:
            result.unsupported = str(answer["unsupported"])
            return False
        name = first_difference(exchange.expected, answer, fields, ready.rule_names)
        if name is None:
            return True
        if result.divergence is not None:
            result.divergence.later += 1
            return True
        index = result.answers - 1
        result.divergence = Divergence(
            index,
            exchange.position,
            exchange.line if exchange.position is not None else None,
            name,
            exchange.expected.get(name, MISSING),
            answer.get(name, MISSING),
            sent[: index + 1],
        )
        return keep_going

    for exchange in exchanges:
        engine.send(exchange.line, exchange.wire)
        sent.append(exchange.line)
        if exchange.position is not None:
            result.sent.add(exchange.position)
            if exchange.refused:
                result.refused.add(exchange.position)
        pending.append(exchange)
        if len(pending) >= engine.window and not check(pending.popleft()):
            return result
    while pending:
        if not check(pending.popleft()):
            return result
    result.finished = True
    return result


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


def add_states(divergence: Divergence, scenario: Scenario, expected: Engine, found: Engine) -> None:
    """Fill in both sides' whole states at the divergence, if both can give them."""
    try:
        divergence.states = (
            state_after(expected, scenario, divergence.lines),
            state_after(found, scenario, divergence.lines),
        )
    except Exception:  # the engine failing again must not hide the divergence itself
        divergence.states = None
