"""The verdict of one scenario checked, as runs collect it and reports give
it: its status, why, and the first divergence's values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.checking.compare import MISSING, Divergence
from bridge.checking.coverage import Coverage
from bridge.formats.capabilities import Capability, lacking, only_tests
from bridge.formats.limits import Limits
from bridge.formats.sections import section
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
    after: dict[str, Any] | None = None
    """The first divergence after an adoption (`--keep-going`), as `divergence`."""
    answers: int = 0
    agreement: str = ""
    at_start: bool = False
    """A FAULT before the engine answered the header (it could not start)."""
    declared: str = ""
    """The profile it was checked under, as a summary says it (`profile: SPEC`)."""
    notes: list[str] = field(default_factory=list)
    coverage: Coverage | None = None
    """What was compared (and delivered under the profile); None when the
    scenario could not be read."""
    engine: str = ""
    """The name the engine gave itself in its answer to the header ("engine")."""
    profile: dict[str, Any] | None = None
    """The profile it was checked under, as bridge/formats/profile.py writes one."""
    family: str = ""
    """The scenario's family (its header's `notes.family`), or ""."""
    page: str | None = None
    """The HTML page written for it (`corpus --report`), relative to that folder."""
    stderr: str = ""
    """The end of what the engine wrote on stderr, when it failed."""
    outside: str = ""
    """The constants the engine accepts, said in words, when the scenario was
    SKIPPED for lying outside them (bridge/formats/limits.py); else ""."""
    failure: Any = None
    """For a FAIL, what explaining it by a rule slip needs (bridge/checking/slips.py
    `Failure`), kept from its replay; None otherwise."""


class Skipped(Exception):
    """The engine cannot take the scenario, and why: never a pass."""


class Outside(Skipped):
    """The scenario's constants lie outside those the engine accepts."""

    def __init__(self, accepted: Limits, broken: str) -> None:
        super().__init__(f"its constants lie outside those the engine accepts: {broken}")
        self.accepted = accepted


class Lacked(Skipped):
    """The scenario was made to test only a capability the engine lacks."""

    def __init__(self, capability: str, spec: str) -> None:
        super().__init__(
            f"it tests only {capability} ({spec}), which the engine does not implement"
        )
        self.capability = capability


def within(scenario: Scenario, accepted: Limits) -> None:
    """Outside when the scenario's constants lie outside `accepted`."""
    broken = accepted.broken(scenario.constants)
    if broken is not None:
        raise Outside(accepted, broken)


def lacks_for(
    scenario: Scenario, ready: Ready, given: frozenset[str] | None, name: str
) -> tuple[Capability, ...]:
    """The capabilities an engine lacks (declared, or `--capabilities`);
    Skipped when the scenario was made to test only one of them."""
    lacks = lacking(capabilities_of(ready.capabilities, given, name))
    alone = only_tests(lacks, scenario.notes)
    if alone is not None:
        raise Lacked(alone.name, alone.spec)
    return lacks


def listed(verdict: Verdict, known: Mapping[str, str]) -> str | None:
    """The status a known-failures list expects of the verdict's scenario
    (listed by file name or stem), or None when it is not listed."""
    return known.get(verdict.path.name, known.get(verdict.path.stem))


def outcome(verdict: Verdict, known: Mapping[str, str]) -> str:
    """A verdict as the run counts it: a listed scenario that ends as listed
    (FAIL, FAULT or SKIPPED) is an expected failure; one that passes is
    reported as passing unexpectedly; any other end counts as it is."""
    expected = listed(verdict, known)
    if expected is not None and verdict.status == expected:
        return "expected failure"
    if expected is not None and verdict.status == "ok":
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
        "spec_section": section(found.field),
        "expected": value(found.expected),
        "found": value(found.found),
        "difference": found.difference(240),
        "later": found.later,
        "adopted": found.adopted,
        "after_adoption": found.after_adoption,
    }
