"""Comparing two engines on a scenario: the first diverging event and field,
a diff of the renders there, and a shrunk scenario that still diverges."""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import zip_longest
from typing import Any

from bridge.engines import BRIEF, DETAIL, Engine, ModelEngine
from bridge.transcript import Record, records
from scenarios.format import Scenario, ScenarioError

FIELDS = ("refused",) + BRIEF + DETAIL


@dataclass(frozen=True)
class Divergence:
    """Where two transcripts first differ."""

    position: int
    event: dict[str, Any]
    field: str
    expected: Any
    found: Any
    expected_render: str | None = None
    found_render: str | None = None

    def report(self, path: str, names: tuple[str, str]) -> str:
        shown = {k: v for k, v in self.event.items() if k not in ("text", "line")}
        lines = [
            f"DIVERGENCE in {path}, event {self.position} (file line {self.position + 2}): {shown}",
            f"  field {self.field!r}",
            f"  {names[0]}: {short(self.expected)}",
            f"  {names[1]}: {short(self.found)}",
        ]
        if self.expected_render is not None and self.found_render is not None:
            diff = difflib.unified_diff(
                self.expected_render.splitlines(),
                self.found_render.splitlines(),
                f"{names[0]} render",
                f"{names[1]} render",
                lineterm="",
            )
            shown_diff = ["    " + d for d in diff]
            lines += ["  renders:", *shown_diff] if shown_diff else ["  renders: equal"]
        return "\n".join(lines)


def short(value: Any, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def first_difference(a: Record | None, b: Record | None) -> str | None:
    """The first field that differs between two records, or None."""
    if a is None or b is None:
        return "event"
    for field in FIELDS:
        if a.get(field) != b.get(field):
            return field
    return None


def diverge(scenario: Scenario, expected: Engine, found: Engine) -> Divergence | None:
    """Replay both engines in lockstep; the first divergence, or None. An event
    the expected engine (the model) refuses is impossible in the scenario: a
    ScenarioError naming file, line and rule, whatever the other engine does."""
    for a, b in zip_longest(records(scenario, expected), records(scenario, found)):
        if a is not None and "refused" in a:
            why = getattr(expected, "refusal", a["refused"])
            line = a["event"] + 2
            raise ScenarioError(f"{scenario.source}:{line}: impossible event: {why}")
        field = first_difference(a, b)
        if field is not None:
            position = (a or b)["event"]
            return Divergence(
                position,
                scenario.events[position],
                field,
                (a or {}).get(field),
                (b or {}).get(field),
                *renders_at(scenario, position, expected, found),
            )
    return None


def renders_at(scenario: Scenario, position: int, *engines: Engine) -> tuple[str | None, ...]:
    """Each engine's render right after the event at `position`."""
    out = []
    prefix = replace(scenario, events=scenario.events[: position + 1])
    for engine in engines:
        last: Record | None = None
        for last in records(prefix, engine):  # noqa: B007 (only the last record is kept)
            pass
        out.append(None if last is None else last.get("render"))
    return tuple(out)


def valid(scenario: Scenario) -> bool:
    """Whether the model accepts every event of the scenario."""
    return all("refused" not in r for r in records(scenario, ModelEngine()))


def diverges(scenario: Scenario, expected: Engine, found: Engine) -> bool:
    """Whether the model accepts every event and the engines differ somewhere."""
    try:
        return diverge(scenario, expected, found) is not None
    except ScenarioError:
        return False


def shrink(
    scenario: Scenario,
    diverges: Callable[[Scenario], bool],
    seconds: float = 120.0,
) -> Scenario:
    """The fewest events found within `seconds` that still diverge: the scenario
    cut after its first divergence, then chunks of events removed (halves,
    quarters, ... single events) while the model accepts the rest and the
    engines still diverge."""
    deadline = time.monotonic() + seconds
    events = scenario.events
    chunk = max(1, len(events) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        start = 0
        removed = False
        while start < len(events) and time.monotonic() < deadline:
            candidate = replace(scenario, events=events[:start] + events[start + chunk :])
            if candidate.events and diverges(candidate):
                events = candidate.events
                removed = True
            else:
                start += chunk
        if not removed:
            chunk //= 2
    return replace(scenario, events=events)
