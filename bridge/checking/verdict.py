"""The verdict of one scenario checked, as runs collect it and reports give
it: its status, why, and the first divergence's values."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.checking.compare import MISSING, Divergence
from bridge.checking.delivery import Delivery


@dataclass
class Verdict:
    """One scenario checked."""

    path: Path
    status: str
    """`ok`, `FAIL`, `SKIPPED`, `FAULT` (engine fault), `BAD` (bad input) or
    `ERROR` (the bridge itself failed)."""
    seconds: float
    reason: str = ""
    report: str = ""
    divergence: dict[str, Any] | None = None
    answers: int = 0
    agreement: str = ""
    notes: list[str] = field(default_factory=list)
    delivery: Delivery | None = None
    """The events delivered under the profile, when the replay went to the end."""


class Skipped(Exception):
    """The engine cannot take the scenario, and why: never a pass."""


def outcome(verdict: Verdict, known: set[str]) -> str:
    """A verdict as the run counts it: a listed scenario that fails is an
    expected failure; one that passes is reported as passing unexpectedly."""
    listed = verdict.path.name in known or verdict.path.stem in known
    if listed and verdict.status == "FAIL":
        return "expected failure"
    if listed and verdict.status == "ok":
        return "UNEXPECTED PASS"
    return verdict.status


def divergence_json(found: Divergence) -> dict[str, Any]:
    """The first divergence as the machine-readable reports give it."""

    def value(v: Any) -> Any:
        return None if v is MISSING else v

    return {
        "position": found.position,
        "file_line": None if found.position is None else found.position + 2,
        "event": found.event,
        "field": found.field,
        "expected": value(found.expected),
        "found": value(found.found),
        "later": found.later,
    }
