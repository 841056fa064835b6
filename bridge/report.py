"""Machine-readable reports of a corpus run, for CI: JUnit XML (one test case
per scenario) and JSON (the same, with the first divergence's values)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.corpus import Verdict


@dataclass(frozen=True)
class Run:
    """What a corpus run checked, and with what."""

    engine: str
    agreement: str
    corpus_version: int | None
    seconds: float
    verdicts: list[Verdict]
    known: set[str]
    """Scenarios listed as known failures (by file name)."""


def outcome(verdict: Verdict, known: set[str]) -> str:
    """A verdict as the run counts it: a listed scenario that fails is an
    expected failure; one that passes is reported as passing unexpectedly."""
    listed = verdict.path.name in known or verdict.path.stem in known
    if listed and verdict.status == "FAIL":
        return "expected failure"
    if listed and verdict.status == "ok":
        return "UNEXPECTED PASS"
    return verdict.status


def to_json(run: Run) -> dict[str, Any]:
    counts: dict[str, int] = {}
    cases = []
    for verdict in run.verdicts:
        seen = outcome(verdict, run.known)
        counts[seen] = counts.get(seen, 0) + 1
        cases.append(
            {
                "scenario": verdict.path.name,
                "path": str(verdict.path),
                "status": seen,
                "seconds": round(verdict.seconds, 3),
                "answers": verdict.answers,
                "reason": verdict.reason,
                "divergence": verdict.divergence,
                "notes": verdict.notes,
            }
        )
    return {
        "engine": run.engine,
        "agreement": run.agreement,
        "corpus_version": run.corpus_version,
        "seconds": round(run.seconds, 3),
        "counts": counts,
        "scenarios": cases,
    }


def write_json(run: Run, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(run), indent=2, ensure_ascii=False) + "\n", "utf-8")


def write_junit(run: Run, path: Path) -> None:
    """JUnit XML: one testsuite, one testcase per scenario; a divergence is a
    failure, an engine fault or bad scenario an error, SKIPPED a skip."""
    suite = ET.Element("testsuite", name=f"optchat-spec corpus ({run.engine})")
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("engine", run.engine),
        ("agreement", run.agreement),
        ("corpus_version", str(run.corpus_version)),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for verdict in run.verdicts:
        tally["tests"] += 1
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"corpus.{verdict.path.parent.name}",
            name=verdict.path.stem,
            time=f"{verdict.seconds:.3f}",
        )
        seen = outcome(verdict, run.known)
        if seen == "FAIL":
            tally["failures"] += 1
            failure = ET.SubElement(case, "failure", message=verdict.reason, type="divergence")
            failure.text = verdict.report or verdict.reason
        elif seen == "UNEXPECTED PASS":
            tally["failures"] += 1
            ET.SubElement(
                case,
                "failure",
                type="unexpected pass",
                message="listed as a known failure, but agrees: take it off the list",
            )
        elif seen in ("FAULT", "BAD", "ERROR"):
            tally["errors"] += 1
            error = ET.SubElement(case, "error", message=verdict.reason.split("\n")[0], type=seen)
            error.text = verdict.reason
        elif seen in ("SKIPPED", "expected failure"):
            tally["skipped"] += 1
            ET.SubElement(case, "skipped", message=f"{seen}: {verdict.reason}")
        if verdict.notes:
            ET.SubElement(case, "system-out").text = "\n".join(verdict.notes)
    for name, count in tally.items():
        suite.set(name, str(count))
    suite.set("time", f"{run.seconds:.3f}")
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
