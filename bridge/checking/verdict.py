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


SECTIONS = {
    "refused": "SPEC 4.1",
    "started": "SPEC 10",
    "line": "SPEC 5",
    "zoom": "SPEC 3.5",
    "render_timed_out_crc": "SPEC 4",
    "size": "SPEC 3",
    "shrinking": "SPEC 3.3",
    "merges": "SPEC 3.3",
    "cmerges": "SPEC 3.4",
    "view_digest": "SPEC 3",
    "cview_digest": "SPEC 3.4",
    "queue": "SPEC 4",
    "queue_waiting": "SPEC 4",
    "view": "SPEC 3",
    "cview": "SPEC 3.4",
    "render_crc": "SPEC 3",
    "contexts_crc": "SPEC 3.4",
    "render": "SPEC 3",
    "render_timed_out": "SPEC 4",
    "contexts": "SPEC 3.4",
}
"""The SPEC section each answer field states (bridge/PROTOCOL.md, "Answers to events")."""


def section(name: str) -> str | None:
    """The SPEC section of an answer field; None for a field SPEC does not define."""
    return SECTIONS.get(name)


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
        "later": found.later,
    }
