"""The verdict of one scenario checked, as runs collect it and reports give
it: its status, why, and the first divergence's values."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.checking.compare import MISSING, Divergence
from bridge.checking.coverage import Coverage
from bridge.formats.capabilities import Capability, lacking, only_tests
from bridge.wire.engine import Ready, capabilities_of
from scenarios.format import Scenario


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
    coverage: Coverage | None = None
    """What was compared; None when the scenario could not be read."""


class Skipped(Exception):
    """The engine cannot take the scenario, and why: never a pass."""


def lacks_for(
    scenario: Scenario, ready: Ready, given: frozenset[str] | None, name: str
) -> tuple[Capability, ...]:
    """The capabilities an engine lacks (declared, or `--capabilities`);
    Skipped when the scenario was made to test only one of them."""
    lacks = lacking(capabilities_of(ready.capabilities, given, name))
    alone = only_tests(lacks, scenario.notes)
    if alone is not None:
        raise Skipped(
            f"it tests only {alone.name} ({alone.spec}), which the engine does not implement"
        )
    return lacks


def outcome(verdict: Verdict, known: set[str]) -> str:
    """A verdict as the run counts it: a listed scenario that fails is an
    expected failure; one that passes is reported as passing unexpectedly."""
    listed = verdict.path.name in known or verdict.path.stem in known
    if listed and verdict.status == "FAIL":
        return "expected failure"
    if listed and verdict.status == "ok":
        return "UNEXPECTED PASS"
    return verdict.status


def undelivered(scenario: Scenario, sent: set[int]) -> list[str]:
    """Outcome events never sent: their calls never started (`calls: self`)."""
    held = [
        p for p, e in enumerate(scenario.events) if e["event"] in ("end", "fail") and p not in sent
    ]
    if not held:
        return []
    shown = ", ".join(str(p) for p in held[:10]) + (" ..." if len(held) > 10 else "")
    return [f"{len(held)} outcome events never sent, their calls never started: events {shown}"]


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
