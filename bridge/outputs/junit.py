"""A corpus run as JUnit XML, for CI: one test case per scenario."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from bridge.checking.coverage import Coverage
from bridge.checking.verdict import outcome
from bridge.runs.corpus import Run


def compared(coverage: Coverage) -> list[tuple[str, str]]:
    """What was compared, as JUnit properties (bridge/checking/coverage.py)."""
    return [
        ("events", str(coverage.events)),
        ("events_compared", str(coverage.compared)),
        ("fraction_compared", f"{coverage.fraction():.6f}"),
        ("not_implemented", coverage.not_implemented()),
        ("coverage", coverage.summary()),
    ]


def partly(coverage: Coverage | None) -> list[str]:
    """A scenario's line saying what was not compared, when something was not."""
    if coverage is None or (coverage.compared == coverage.events and not coverage.lacking):
        return []
    return [coverage.summary()]


def write_junit(run: Run, path: Path) -> None:
    """JUnit XML: one testsuite, one testcase per scenario; a divergence is a
    failure, an engine fault or bad scenario an error, SKIPPED a skip. The
    suite's properties say what the run compared; a scenario's output, what
    it did not compare."""
    suite = ET.Element("testsuite", name=f"optchat-spec corpus ({run.engine})")
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("engine", run.engine),
        ("agreement", run.agreement),
        ("corpus_version", str(run.corpus_version)),
        *compared(run.coverage()),
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
        said = verdict.notes + partly(verdict.coverage)
        if said:
            ET.SubElement(case, "system-out").text = "\n".join(said)
    for name, count in tally.items():
        suite.set(name, str(count))
    suite.set("time", f"{run.seconds:.3f}")
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
