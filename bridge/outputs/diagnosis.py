"""What `diagnose` says: each failing scenario's divergences and what
explained them, the proposed profile and capabilities as JSON ready to
paste, the scenarios that needed each change, the likely bugs, shrunk, and
what the replays under the proposal compared and delivered, and what not
and why (bridge/checking/coverage.py); as text, as JSON (`--json`, in the
form bridge/diagnosis.schema.json) and as JUnit XML (`--junit-xml`)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from bridge import __version__
from bridge.formats.kit import shown
from bridge.formats.layout import unique_name
from bridge.formats.profile import SPEC, to_json
from bridge.outputs.junit import add, compared, partly
from bridge.outputs.markup import visible
from bridge.outputs.regressions import write_regression
from bridge.outputs.writing import write_whole
from bridge.runs.diagnose import Diagnosis, Report

SHOWN = 8
"""How many scenario names a list shows before `...`."""

FORMAT = "optchat-spec-diagnosis/1"
"""What a `diagnose --json` report says it is."""

NOT_CHECKED = ("SKIPPED", "BAD", "FAULT", "ERROR")
"""The statuses of a scenario diagnose could not follow."""


def names(paths: list[Path]) -> str:
    shown = ", ".join(p.stem for p in paths[:SHOWN])
    return shown + (f", ... ({len(paths)} in all)" if len(paths) > SHOWN else "")


def proposal(report: Report) -> dict[str, Any]:
    """The proposed profile and capabilities as an engine declares them in
    its ready answer: the options that differ from SPEC (SPEC 10) and the
    capabilities it implements (bridge/PROTOCOL.md)."""
    spec = to_json(SPEC)
    profile = {k: v for k, v in to_json(report.proposed.profile).items() if spec[k] != v}
    return {"profile": profile, "capabilities": sorted(report.proposed.held)}


def write_bugs(report: Report, regressions: Path) -> dict[Path, Path]:
    """Each likely bug shrunk, written under `regressions`: the scenario's
    path, and where its shrunk copy went."""
    written = {}
    for d, small in report.bugs:
        if small is not None:
            name = unique_name(d.path, report.engine)
            written[d.path] = write_regression(small, report.proposed.profile, regressions, name)
    return written


def scenario_lines(d: Diagnosis) -> list[str]:
    """One failing scenario: each divergence and what made it vanish."""
    if d.status in NOT_CHECKED:
        return [f"{d.status:<11} {d.path.name}: {d.reason.splitlines()[0] if d.reason else ''}"]
    if d.status == "agrees":
        return []
    out = [f"{d.status:<11} {d.path.name} ({d.seconds:.1f} s, {d.replays} replays)"]
    for step in d.steps:
        why = ", ".join(c.said() for c in step.explained_by) or "no change explains it"
        out.append(f"    {step.summary}\n        -> {why}")
    return out


def counts(report: Report) -> dict[str, int]:
    """How many scenarios ended in each status."""
    out: dict[str, int] = {}
    for d in report.diagnoses:
        out[d.status] = out.get(d.status, 0) + 1
    return out


def exit_code(report: Report) -> int:
    """0 when every scenario agrees under the proposal, 1 when likely bugs
    remain, 2 when a scenario could not be checked."""
    if any(d.status in ("BAD", "FAULT", "ERROR") for d in report.diagnoses):
        return 2
    return 1 if report.bugs else 0


def text(report: Report, written: dict[Path, Path]) -> tuple[list[str], int]:
    """The report's lines (`written`: where each shrunk likely bug went), and the exit code."""
    out: list[str] = []
    for d in report.diagnoses:
        out += scenario_lines(d)
    out.append(
        f"{len(report.diagnoses)} scenarios: "
        + ", ".join(f"{n} {s}" for s, n in counts(report).items())
        + f" ({report.seconds:.1f} s)"
    )
    if report.needing:
        out.append("proposed changes (each a deviation the engine can declare, or a bug that")
        out.append("only looks like one: check each against the engine's intent):")
        for change, paths in report.needing.items():
            out.append(f"  {change.said()}: needed by {len(paths)}: {names(paths)}")
    else:
        out.append("no change of the profile or capabilities is needed")
    out.append(
        "proposed profile and capabilities (SPEC 10, bridge/PROTOCOL.md; paste into the ready"
        ' answer, or give "profile" as a --profile file and "capabilities" as --capabilities):'
    )
    out.append(json.dumps(proposal(report), sort_keys=True))
    if report.bugs:
        out.append(
            f"likely bugs: {len(report.bugs)} scenarios still fail under the proposed profile"
        )
        for d, small in report.bugs:
            out.append(f"  {d.path.name}: {d.steps[-1].summary}")
            if small is not None:
                out.append(f"    shrunk to {len(small.events)} events: {written[d.path]}")
    else:
        out.append("no likely bug: every scenario agrees under the proposed profile")
    out.append(f"under the proposed profile: {report.coverage().summary()}")
    return out, exit_code(report)


def to_json_report(report: Report, written: dict[Path, Path]) -> dict[str, Any]:
    """The diagnosis as `--json` writes it."""
    bugs = {d.path: small for d, small in report.bugs}
    scenarios = []
    for d in report.diagnoses:
        small = bugs.get(d.path)
        counted = report.covered.get(d.path)
        scenarios.append(
            {
                "scenario": d.path.name,
                "path": shown(d.path),
                "status": d.status,
                "seconds": round(d.seconds, 3),
                "replays": d.replays,
                "reason": d.reason,
                "steps": [
                    {
                        "position": step.position,
                        "divergence": step.summary,
                        "explained_by": [[c.option, c.value] for c in step.explained_by],
                    }
                    for step in d.steps
                ],
                "needed": [[c.option, c.value] for c in d.needed],
                "likely_bug": d.path in bugs,
                "shrunk": None
                if small is None
                else {"events": len(small.events), "path": str(written[d.path])},
                "coverage": None if counted is None else counted.to_json(),
            }
        )
    return {
        "format": FORMAT,
        "runner_version": __version__,
        "engine": report.engine,
        "seconds": round(report.seconds, 3),
        "counts": counts(report),
        "declared": {
            "profile": to_json(report.base.profile),
            "capabilities": sorted(report.base.held),
        },
        "proposed": proposal(report),
        "deviations": [
            {
                "option": change.option,
                "value": change.value,
                "scenarios": [p.name for p in paths],
            }
            for change, paths in report.needing.items()
        ],
        "likely_bugs": [d.path.name for d, _ in report.bugs],
        "coverage": report.coverage().to_json(),
        "scenarios": scenarios,
    }


def write_json(report: Report, written: dict[Path, Path], path: Path) -> None:
    """Write the JSON report whole; text no UTF-8 holds is kept as its `\\u` escape."""
    data = to_json_report(report, written)
    write_whole(path, json.dumps(data, indent=2, ensure_ascii=True) + "\n")


def write_junit(report: Report, written: dict[Path, Path], path: Path) -> None:
    """JUnit XML: a test case per scenario; a likely bug is a failure, a
    scenario that could not be followed an error (SKIPPED a skip); the
    suite's properties hold the proposal, each deviation's scenarios and
    what the replays under the proposal compared, a test case's output what
    its replay did not compare."""
    suite = ET.Element("testsuite", name=visible(f"optchat-spec diagnose ({report.engine})"))
    properties = add(suite, "properties")
    pairs = [
        ("runner_version", __version__),
        ("engine", report.engine),
        ("proposed", json.dumps(proposal(report), sort_keys=True)),
    ]
    pairs += [(f"deviation {c.said()}", names(paths)) for c, paths in report.needing.items()]
    pairs += compared(report.coverage())
    for name, value in pairs:
        add(properties, "property", name=name, value=value)
    bugs = {d.path for d, _ in report.bugs}
    tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for d in report.diagnoses:
        tally["tests"] += 1
        case = add(
            suite,
            "testcase",
            classname="diagnose",
            name=d.path.stem,
            file=shown(d.path),
            time=f"{d.seconds:.3f}",
        )
        said = [
            s.summary
            + " -> "
            + (", ".join(c.said() for c in s.explained_by) or "no change explains it")
            for s in d.steps
        ] + partly(report.covered.get(d.path))
        if d.path in bugs:
            tally["failures"] += 1
            shrunk = written.get(d.path)
            more = f"\nshrunk: {shrunk}" if shrunk is not None else ""
            add(
                case,
                "failure",
                "\n".join(said) + more,
                message=d.steps[-1].summary,
                type="likely bug",
            )
        elif d.status in ("BAD", "FAULT", "ERROR"):
            tally["errors"] += 1
            add(case, "error", d.reason, message=d.reason.split("\n")[0], type=d.status)
        elif d.status == "SKIPPED":
            tally["skipped"] += 1
            add(case, "skipped", message=f"SKIPPED: {d.reason}")
        elif said:
            add(case, "system-out", "\n".join(said))
    for name, count in tally.items():
        suite.set(name, str(count))
    suite.set("time", f"{report.seconds:.3f}")
    write_whole(path, ET.tostring(suite, encoding="utf-8", xml_declaration=True))
