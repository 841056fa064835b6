"""A corpus run as JUnit XML, for CI: one test case per scenario, named by
its family (or folder), with what ran as the suite's properties."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from bridge import __version__
from bridge.checking.causes import Cause
from bridge.checking.coverage import Coverage
from bridge.checking.verdict import Verdict, outcome
from bridge.formats.kit import shown
from bridge.outputs.markup import visible
from bridge.outputs.writing import write_whole
from bridge.runs.corpus import Run


def compared(coverage: Coverage) -> list[tuple[str, str]]:
    """What was compared, as JUnit properties (bridge/checking/coverage.py)."""
    return [
        ("events", str(coverage.events)),
        ("events_compared", str(coverage.compared)),
        ("fraction_compared", f"{coverage.fraction():.6f}"),
        ("events_to_deliver", str(coverage.owed)),
        ("events_delivered", str(coverage.delivered)),
        ("fraction_delivered", f"{coverage.delivered_fraction():.6f}"),
        ("scenarios_replayed_to_the_end", str(coverage.ended)),
        ("not_implemented", coverage.not_implemented()),
        ("coverage", coverage.summary()),
    ]


def partly(coverage: Coverage | None) -> list[str]:
    """A scenario's line saying what was not compared, when something was not."""
    if coverage is None or (
        coverage.compared == coverage.events
        and not coverage.lacking
        and coverage.delivered == coverage.owed
    ):
        return []
    return [coverage.summary()]


RUN_CASE = {"classname": "optchat-spec", "name": "events compared"}
"""The test case of the run itself, there only when it compared too little
(nothing, or less than `--min-compared`): a JUnit reader then shows the run
red, as its exit code is. `merge-reports` puts it back from the shards' sum."""


def set_tallies(suite: ET.Element, tally: dict[str, int], short: str | None) -> None:
    """The suite's counts (`tests`, `failures`, ...) from `tally`, after the
    run's own failing test case when it compared too little (`short` says
    how, None when it did not)."""
    if short is not None:
        case = add(suite, "testcase", **RUN_CASE, time="0.000")
        add(case, "failure", short, message=short, type="too little compared")
        tally["tests"] += 1
        tally["failures"] += 1
    for name, count in tally.items():
        suite.set(name, str(count))


def verdict_properties(
    floor: float, shard: str | None, code: int, summary: str
) -> list[tuple[str, str]]:
    """The run's verdict as JUnit properties: the floor it was held to, the
    shard it is, its exit code and its last line."""
    return [
        ("min_compared", f"{floor:g}"),
        ("shard", shard or ""),
        ("exit_code", str(code)),
        ("verdict", summary),
    ]


def classname(verdict: Verdict) -> str:
    """A test case's class: its folder, and its family when the scenario names one."""
    parts = [verdict.path.parent.name or "scenarios", verdict.family]
    return ".".join(visible(part) for part in parts if part)


def add(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    """A child element whose attributes and text hold only characters XML 1.0 allows."""
    child = ET.SubElement(parent, tag, {k: visible(v) for k, v in attributes.items()})
    if text is not None:
        child.text = visible(text)
    return child


def test_case(
    suite: ET.Element, verdict: Verdict, seen: str, cause: Cause | None, seconds: list[str]
) -> str | None:
    """The scenario's test case (with the cause of its FAIL as a property,
    and each other cause whose bug it shows too, `seconds`, as a
    `SECOND_CAUSE` one); which tally it counts in, if any."""
    case = add(
        suite,
        "testcase",
        classname=classname(verdict),
        name=verdict.path.stem,
        file=shown(verdict.path),
        time=f"{verdict.seconds:.3f}",
    )
    counted = None
    if seen == "FAIL":
        counted = "failures"
        message = verdict.reason  # its summary cites the field's SPEC section
        text = verdict.report or verdict.reason
        named: list[tuple[str, str]] = []
        if cause is not None:
            named.append(("cause", cause.id))
            text += f"\ncause {cause_said(cause)}"
        named += [(SECOND_CAUSE, second) for second in seconds]
        adopted = verdict.coverage.adopted if verdict.coverage is not None else 0
        if adopted:
            named.append(("compared_after_adoption", str(adopted)))
        if verdict.after is not None:
            named.append(("after_adoption", str(verdict.after["field"])))
        if named:
            properties = add(case, "properties")
            for key, value in named:
                add(properties, "property", name=key, value=value)
        add(case, "failure", text, message=message, type="divergence")
    elif seen == "UNEXPECTED PASS":
        counted = "failures"
        add(
            case,
            "failure",
            type="unexpected pass",
            message="listed as a known failure, but agrees: take it off the list",
        )
    elif seen in ("FAULT", "BAD", "ERROR"):
        counted = "errors"
        add(case, "error", verdict.reason, message=verdict.reason.split("\n")[0], type=seen)
    elif seen in ("SKIPPED", "expected failure"):
        counted = "skipped"
        add(case, "skipped", message=f"{seen}: {verdict.reason}")
    said = verdict.notes + partly(verdict.coverage)
    if said:
        add(case, "system-out", "\n".join(said))
    if verdict.stderr:
        add(case, "system-err", verdict.stderr)
    return counted


SECOND_CAUSE = "second_cause"
"""The property of a FAIL's test case naming another cause whose bug it
shows too (that cause's `after`): the FAILs counted once in the verdict's
`(N showing two causes' bugs, counted once)`, which `merge-reports` counts
again from the shards' test cases (`shows_two_causes`)."""


def shows_two_causes(case: ET.Element) -> bool:
    """Whether a test case is a FAIL showing a second cause's bug too (`SECOND_CAUSE`)."""
    return any(p.get("name") == SECOND_CAUSE for p in case.iterfind("properties/property"))


def outcome_of(case: ET.Element) -> str:
    """A scenario's outcome as its test case says it (`test_case` read back)."""
    failure, error, skipped = (case.find(tag) for tag in ("failure", "error", "skipped"))
    if failure is not None:
        return "UNEXPECTED PASS" if failure.get("type") == "unexpected pass" else "FAIL"
    if error is not None:
        return error.get("type") or "ERROR"
    if skipped is not None:
        return (skipped.get("message") or "SKIPPED").split(":")[0]
    return "ok"


def is_run_case(case: ET.Element) -> bool:
    """Whether a test case is the run's own (`RUN_CASE`), no scenario's."""
    return all(case.get(key) == value for key, value in RUN_CASE.items())


def cause_said(cause: Cause) -> str:
    """A cause as a property's value says it: `ID: what it is`, and where
    its shrunk scenario is (its scenarios are the test cases naming it)."""
    where = f"; shrunk: {cause.written}" if cause.written else ""
    return f"{cause.id}: {cause.said()}{where}"


def write_junit(run: Run, path: Path) -> None:
    """JUnit XML: one testsuite, one testcase per scenario; a divergence is a
    failure, an engine fault or bad scenario an error, SKIPPED a skip; a run
    that compared too little has a failing test case of its own (`RUN_CASE`).
    The suite's properties say what the run compared, the causes of its
    FAILs (`causes`, then a `cause` each: its id and what it is) and its
    verdict; a FAIL's test case names its cause (a `cause` property, and the
    failure's last line), and each other cause whose bug it shows too; a
    scenario's output says what it did not compare."""
    suite = ET.Element("testsuite", name=visible(f"optchat-spec corpus ({run.engine})"))
    properties = add(suite, "properties")
    profile = next((v.profile for v in run.verdicts if v.profile is not None), None)
    for name, value in (
        ("runner_version", __version__),
        ("engine", run.engine),
        ("engine_name", next((v.engine for v in run.verdicts if v.engine), "")),
        ("profile", json.dumps(profile, sort_keys=True) if profile is not None else ""),
        ("agreement", run.agreement),
        ("corpus_version", str(run.corpus_version)),
        *compared(run.coverage()),
        ("causes", str(len(run.causes))),
        *(("cause", cause_said(cause)) for cause in run.causes),
        *verdict_properties(run.floor, run.shard, run.tally().code(), run.summary()),
    ):
        add(properties, "property", name=name, value=value)
    tally = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    by_id = {cause.id: cause for cause in run.causes}
    for verdict in run.verdicts:
        tally["tests"] += 1
        cause = by_id.get(run.cause_of(verdict) or "")
        seconds = [c.id for c in run.causes if shown(verdict.path) in c.after]
        counted = test_case(suite, verdict, outcome(verdict, run.known), cause, seconds)
        if counted is not None:
            tally[counted] += 1
    set_tallies(suite, tally, run.tally().short())
    suite.set("time", f"{run.seconds:.3f}")
    write_whole(path, ET.tostring(suite, encoding="utf-8", xml_declaration=True))
