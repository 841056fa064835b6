"""What `diagnose` says: each failing scenario's divergences and what
explained them, the proposed profile as JSON ready to paste, the scenarios
that needed each change, and the likely bugs, shrunk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge.formats.layout import unique_name
from bridge.formats.profile import SPEC, to_json
from bridge.outputs.regressions import write_regression
from bridge.runs.diagnose import Diagnosis, Report

SHOWN = 8
"""How many scenario names a list shows before `...`."""


def names(paths: list[Path]) -> str:
    shown = ", ".join(p.stem for p in paths[:SHOWN])
    return shown + (f", ... ({len(paths)} in all)" if len(paths) > SHOWN else "")


def proposal(report: Report) -> dict[str, Any]:
    """The proposed profile as an engine declares it: the options that
    differ from SPEC (SPEC 10, bridge/PROTOCOL.md)."""
    spec = to_json(SPEC)
    return {k: v for k, v in to_json(report.proposed).items() if spec[k] != v}


def scenario_lines(d: Diagnosis) -> list[str]:
    """One failing scenario: each divergence and what made it vanish."""
    if d.status in ("SKIPPED", "BAD", "FAULT", "ERROR"):
        return [f"{d.status:<11} {d.path.name}: {d.reason.splitlines()[0] if d.reason else ''}"]
    if d.status == "agrees":
        return []
    out = [f"{d.status:<11} {d.path.name} ({d.seconds:.1f} s, {d.replays} model replays)"]
    for step in d.steps:
        why = ", ".join(c.said() for c in step.explained_by) or "no change explains it"
        out.append(f"    {step.summary}\n        -> {why}")
    return out


def text(report: Report, regressions: Path) -> tuple[list[str], int]:
    """The report's lines (shrunk likely bugs written under `regressions`),
    and the exit code: 0 when every scenario agrees under the proposal, 1
    when likely bugs remain, 2 when a scenario could not be checked."""
    out: list[str] = []
    for d in report.diagnoses:
        out += scenario_lines(d)
    counts: dict[str, int] = {}
    for d in report.diagnoses:
        counts[d.status] = counts.get(d.status, 0) + 1
    out.append(
        f"{len(report.diagnoses)} scenarios: "
        + ", ".join(f"{n} {s}" for s, n in counts.items())
        + f" ({report.seconds:.1f} s)"
    )
    if report.needing:
        out.append("proposed changes (each a deviation the engine can declare, or a bug that")
        out.append("only looks like one: check each against the engine's intent):")
        for change, paths in report.needing.items():
            out.append(f"  {change.said()}: needed by {len(paths)}: {names(paths)}")
    else:
        out.append("no change of the profile is needed")
    out.append(
        'proposed profile (SPEC 10; paste as the ready answer\'s "profile" or a --profile file):'
    )
    out.append(json.dumps(proposal(report), sort_keys=True))
    if report.bugs:
        out.append(
            f"likely bugs: {len(report.bugs)} scenarios still fail under the proposed profile"
        )
        for d, small in report.bugs:
            out.append(f"  {d.path.name}: {d.steps[-1].summary}")
            if small is not None:
                name = unique_name(d.path, report.engine)
                path = write_regression(small, report.proposed, regressions, name)
                out.append(f"    shrunk to {len(small.events)} events: {path}")
    else:
        out.append("no likely bug: every scenario agrees under the proposed profile")
    bad = any(d.status in ("BAD", "FAULT", "ERROR") for d in report.diagnoses)
    return out, 2 if bad else 1 if report.bugs else 0
