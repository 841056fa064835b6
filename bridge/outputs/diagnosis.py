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
from bridge.checking.causes import Cause, Signature
from bridge.checking.changes import LACKS, Change, proposal_of, untried
from bridge.formats.kit import shown
from bridge.formats.profile import SPEC, to_json
from bridge.outputs.junit import add, compared, partly, set_tallies, verdict_properties
from bridge.outputs.markup import visible
from bridge.outputs.writing import write_whole
from bridge.runs.corpus import Options
from bridge.runs.diagnose import FAULTS, Report
from bridge.runs.follow import Diagnosis
from bridge.runs.triage import said_cause

SHOWN = 8
"""How many scenario names a list shows before `...`."""

FORMAT = "optchat-spec-diagnosis/1"
"""What a `diagnose --json` report says it is."""

NOT_CHECKED = ("SKIPPED", "BAD", "FAULT", "ERROR", "unfinished")
"""The statuses of a scenario diagnose could not follow."""


def names(paths: list[Path]) -> str:
    shown = ", ".join(p.stem for p in paths[:SHOWN])
    return shown + (f", ... ({len(paths)} in all)" if len(paths) > SHOWN else "")


def after(cause: Cause) -> list[Path]:
    """The FAILs of other causes a cause's bug shows in after theirs (`Cause.after`)."""
    return [Path(name) for name in cause.after]


def shrunk_from(report: Report) -> dict[Path, list[Cause]]:
    """The causes whose shrunk scenario was written (under --regressions as
    `corpus` writes them, bridge/runs/triage.py), by the likely bug each was
    shrunk from: two may be shrunk from one (a bug that shows only after
    another's, from a FAIL of that other's), the cause it is counted in first."""
    at = {shown(d.path): d.path for d in report.bugs}
    out: dict[Path, list[Cause]] = {}
    for c in sorted(report.causes, key=lambda c: c.representative not in c.scenarios):
        if c.written is not None and c.representative in at:
            out.setdefault(at[c.representative], []).append(c)
    return out


def counted_in(path: Path, causes: list[Cause]) -> Cause | None:
    """Of the causes shrunk from a likely bug, the one it is counted in;
    None when that one was shrunk from another (the others show after it)."""
    return next((c for c in causes if shown(path) in c.scenarios), None)


def shrunk_json(cause: Cause | None) -> dict[str, Any] | None:
    """A cause's shrunk scenario as the JSON report gives it: its events and
    where it was written; None when it was not written."""
    if cause is None or cause.shrunk is None or cause.written is None:
        return None
    return {"events": len(cause.shrunk.events), "path": cause.written}


def scenario_lines(d: Diagnosis) -> list[str]:
    """One failing scenario: each divergence and what made it vanish."""
    if d.status in NOT_CHECKED:
        reason = visible(d.reason.splitlines()[0]) if d.reason else ""
        return [f"{d.status:<11} {d.path.name}: {reason}"]
    if d.status == "agrees":
        return []
    out = [f"{d.status:<11} {d.path.name} ({d.seconds:.1f} s, {d.replays} replays)"]
    for step in d.steps:
        why = ", ".join(c.said() for c in step.explained_by) or "no change explains it"
        out.append(f"    {visible(step.summary)}\n        -> {visible(why)}")
    return out


def declared_value(report: Report, change: Change) -> str | None:
    """How a change contradicts the engine's declaration: the option as the
    engine declared it, when it declared another value than SPEC's and the
    change sets another (`your declared "retry": "tick"`); None otherwise."""
    if change.option == LACKS:
        return None
    was = getattr(report.base.profile, change.option)
    if was == getattr(SPEC, change.option) or was == change.value:
        return None
    return Change(change.option, was).said()


def undone(report: Report, change: Change) -> str:
    """A difference of the proposal a likely bug contradicts, in words."""
    if change.option == LACKS:
        return f"holding {change.value} (proposed lacking) moves it later"
    was = getattr(report.base.profile, change.option)
    spec = getattr(SPEC, change.option)
    if was == change.value and was != spec:
        back = Change(change.option, spec).said()
        return f"it comes later with {back} (SPEC's) than with your declared {change.said()}"
    back = Change(change.option, was).said()
    return f"it comes later with {back} (declared) than with the proposed {change.said()}"


def shown_symptom(symptom: tuple[Any, ...]) -> str:
    """A symptom (bridge/checking/changes.py `symptom`) in words:
    `queue` differing (the engine's has more level-0 nodes)."""
    field, *how = symptom
    if field == "refused" and how:
        rules = [json.dumps(rule) if rule is not None else "none" for rule in how]
        return f"`refused` differing (expected {rules[0]}, found {rules[1]})"
    words = [
        f"{'more' if h[0] == '+' else 'fewer'} level-{h[1]} nodes"
        if isinstance(h, tuple)
        else {"order": "the same nodes in another order", "more": "larger", "less": "smaller"}[h]
        for h in how
    ]
    return f"`{field}` differing" + (f" (the engine's has {', '.join(words)})" if words else "")


def causes(report: Report) -> list[tuple[Cause, list[Diagnosis]]]:
    """The likely bugs by cause, as `corpus` names the causes of its FAILs
    (bridge/runs/triage.py, through bridge/runs/diagnose.py `grouped`), the
    cause of the most first; a cause whose bug shows only after another's
    (no likely bug counted in it, `Cause.after`) among them, as `corpus`
    counts it; a likely bug the run did not group (it stopped first, or its
    replay under the proposal faulted) in a cause of the kind of event and
    part its divergence shows, not shrunk."""
    bugs = {shown(d.path): d for d in report.bugs}
    out = [(c, [bugs[n] for n in c.scenarios if n in bugs]) for c in report.causes]
    out = [(c, g) for c, g in out if g or c.after]
    grouped = {n for c, _ in out for n in c.scenarios}
    alone: dict[Signature, list[Diagnosis]] = {}
    for name, d in bugs.items():
        if name not in grouped:
            kind, part = d.steps[-1].way if d.steps else ("detail", "")
            alone.setdefault(Signature(part, kind), []).append(d)
    out += [(Cause(key, [shown(d.path) for d in g]), g) for key, g in alone.items()]
    return sorted(out, key=lambda pair: (-len(pair[1]), pair[0].id))


def many(count: int, word: str) -> str:
    """`1 likely bug`, `2 likely bugs`; `2 LIKELY BUGS` in capitals."""
    return f"{count} {word}" + ("" if count == 1 else "S" if word.isupper() else "s")


def counts(report: Report) -> dict[str, int]:
    """How many scenarios ended in each status."""
    out: dict[str, int] = {}
    for d in report.diagnoses:
        out[d.status] = out.get(d.status, 0) + 1
    return out


def followed(report: Report) -> int:
    """How many scenarios were replayed to a verdict."""
    return sum(d.status not in NOT_CHECKED for d in report.diagnoses)


def exit_code(report: Report, floor: float = 0.0) -> int:
    """0 when every scenario agrees under the proposal, having compared
    events (at least `floor` of them: `--min-compared`); 1 when likely bugs
    remain or too little was compared (nothing, when every scenario was
    SKIPPED: issue 33's contract, as `corpus` says it); 2 when a scenario
    could not be checked, or a likely bug's replay faulted while it was
    named, or the run stopped early."""
    if report.stopped or any(d.status in FAULTS for d in report.diagnoses) or faulted(report):
        return 2
    return 1 if report.bugs or report.coverage().short(floor) else 0


def faulted(report: Report) -> list[Path]:
    """The likely bugs whose replay faulted while they were named (`Report.unnamed`)."""
    return [path for path, (status, _) in report.unnamed.items() if status in FAULTS]


def unnamed_line(report: Report, path: Path) -> str | None:
    """What a likely bug's replay while it was named ended in, when not in
    a FAIL (`Report.unnamed`); None when it failed, or was not replayed."""
    if path not in report.unnamed:
        return None
    status, why = report.unnamed[path]
    how = f"{status}: {visible(why)}" if why else status
    return f"not named: replayed again to be named, it ended {how}; grouped apart, not shrunk"


def last_line(report: Report, floor: float) -> str:
    """The verdict, beside the fraction of the events compared under the
    proposal; a run stopped early gives none (exit 2), only what it found."""
    short = report.coverage().short(floor)
    if report.stopped:
        found = "no likely bug"
        if report.bugs:
            bugs, scenarios = many(len(causes(report)), "likely bug"), len(report.bugs)
            found = f"{bugs} (in {many(scenarios, 'scenario')})"
        return (
            f"STOPPED ({report.stopped}) before the end, no verdict: {found} in the "
            f"scenarios followed; {report.coverage().compared_said(floor)}"
        )
    if short is not None:
        return short
    bugs = "NO LIKELY BUG"
    if report.bugs:
        bugs = f"{many(len(causes(report)), 'LIKELY BUG')}, in {many(len(report.bugs), 'scenario')}"
    if report.unnamed:
        bugs += f" ({len(report.unnamed)} NOT NAMED: see above)"
    lost = sum(d.status in FAULTS for d in report.diagnoses)
    if lost:
        # No scenario that could not be followed is said to hold no bug.
        bugs = f"{lost} of {len(report.diagnoses)} scenarios NOT DIAGNOSED (see above); " + (
            bugs.lower() if report.bugs else "no verdict on those"
        )
    return f"{bugs}; {report.coverage().compared_said(floor)}"


def text(report: Report, floor: float = 0.0) -> tuple[list[str], int]:
    """The report's lines (each cause's shrunk scenario said where it went),
    and the exit code (`floor`: `--min-compared`)."""
    out: list[str] = []
    for d in report.diagnoses:
        out += scenario_lines(d)
    out.append(
        f"{len(report.diagnoses)} scenarios: "
        + ", ".join(f"{n} {s}" for s, n in counts(report).items())
        + f" ({report.seconds:.1f} s)"
    )
    if report.stopped:
        out.append(
            f"STOPPED ({report.stopped}) before the end: "
            + (
                f"{many(len(report.unfinished), 'scenario')} not followed or not checked under "
                f"the proposal ({names(report.unfinished)}); "
                if report.unfinished
                else ""
            )
            + "what follows is from the scenarios that were"
        )
    if report.needing:
        out.append("proposed changes (each a deviation the engine can declare, or a bug that")
        out.append("only looks like one: check each against the engine's intent):")
        for change, paths in report.needing.items():
            was = declared_value(report, change)
            shown = change.said() if was is None else f"your declared {was} is contradicted: "
            shown += "" if was is None else change.said()
            out.append(f"  {visible(shown)}: needed by {len(paths)}: {names(paths)}")
    else:
        out.append("no change of the profile or capabilities is needed")
    for change, (symptom, count) in report.doubtful.items():
        out.append(
            f"not proposed: {visible(change.said())}: it explained {shown_symptom(symptom)}; "
            "likely bugs that show it unexplained, or the other way round under it, or that "
            f"diverge earlier under it where the engine agreed without it: {count}; "
            "a bug explained away, not a difference"
        )
    unguessed = untried()
    if unguessed:
        out.append(f"not tried (no value is guessed for them): {', '.join(unguessed)}")
    out.append(
        "proposed profile and capabilities (SPEC 10, bridge/PROTOCOL.md; paste into the ready"
        ' answer, or give "profile" as a --profile file and "capabilities" as --capabilities):'
    )
    out.append(json.dumps(proposal_of(report.proposed), sort_keys=True))
    out += bug_lines(report)
    out.append(f"under the proposed profile: {report.coverage().summary()}")
    out.append(last_line(report, floor))
    return out, exit_code(report, floor)


def bug_lines(report: Report) -> list[str]:
    """The likely bugs by cause, or what the run could not say and why."""
    if not followed(report):
        words = ", ".join(f"{n} {s}" for s, n in counts(report).items())
        return [f"nothing was checked: no scenario could be followed ({words}); see above"]
    left = len(report.diagnoses) - followed(report)
    if not report.bugs and not any(d.status in FAULTS for d in report.diagnoses):
        rest = f" ({left} not followed: see above)" if left else ""
        return ["no likely bug: every scenario followed agrees under the proposed profile" + rest]
    if not report.bugs:
        return [
            f"every scenario followed agrees under the proposed profile, but {left} could not "
            "be followed (see above): they are not diagnosed, and may hold bugs"
        ]
    groups = causes(report)
    out = [
        f"{many(len(groups), 'likely bug')}, in {many(len(report.bugs), 'scenario')} that "
        "still fail under the proposed profile, named as `corpus` names the causes of FAILs:"
    ]
    options = report.options or Options(report.engine)
    found = [one for one, _ in groups]
    for k, (one, group) in enumerate(groups, start=1):
        out += [visible(line) for line in said_cause(k, one, options, found).splitlines()]
        if one.written is not None and report.proposed != report.base:
            out.append(
                "     (its replay shows the bug with --proposal, which gives the proposed profile "
                "and capabilities above to the model's side alone, or once the engine declares "
                "them, or is given them as --profile and --capabilities)"
            )
        contradicts = group[0].contradicts if group else ()
        for change in contradicts:
            out.append(f"     contradicts the proposal: {visible(undone(report, change))}")
        shown_here = {d.steps[-1].symptom for d in group}
        near = [c for c, (symptom, _) in report.doubtful.items() if symptom in shown_here]
        for change in near:
            said = visible(change.said())
            out.append(f"     looks like {said} in places (not proposed: see above)")
        if group and not contradicts:
            out.append(
                "     no option or capability explains it (a bug, or a difference "
                "SPEC 10 has no option for)"
            )
        for d in group:
            out.append(f"     {d.path.name}: {visible(d.steps[-1].summary)}")
            unnamed = unnamed_line(report, d.path)
            if unnamed is not None:
                out.append(f"       {unnamed}")
    return out


def to_json_report(report: Report, floor: float = 0.0) -> dict[str, Any]:
    """The diagnosis as `--json` writes it."""
    bugs = {d.path for d in report.bugs}
    shrunk = shrunk_from(report)
    contradicting = {d.path: d.contradicts for d in report.bugs}
    scenarios = []
    for d in report.diagnoses:
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
                        "explained_by": [[c.option, c.shown] for c in step.explained_by],
                    }
                    for step in d.steps
                ],
                "needed": [[c.option, c.shown] for c in d.needed],
                "likely_bug": d.path in bugs,
                "contradicts": [[c.option, c.shown] for c in contradicting.get(d.path, ())],
                "shrunk": shrunk_json(counted_in(d.path, shrunk.get(d.path, []))),
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
        "proposed": proposal_of(report.proposed),
        "deviations": [
            {
                "option": change.option,
                "value": change.shown,
                "scenarios": [p.name for p in paths],
                "declared": None
                if declared_value(report, change) is None
                else Change(change.option, getattr(report.base.profile, change.option)).shown,
            }
            for change, paths in report.needing.items()
        ],
        "likely_bugs": [d.path.name for d in report.bugs],
        "unnamed": [
            {"scenario": path.name, "status": status, "reason": why}
            for path, (status, why) in report.unnamed.items()
        ],
        "causes": [
            {
                "cause": one.said(),
                "id": one.id,
                "scenarios": [d.path.name for d in group] or [Path(n).name for n in one.after],
                "contradicts": [[c.option, c.shown] for c in group[0].contradicts] if group else [],
                "shrunk": shrunk_json(one),
            }
            for one, group in causes(report)
        ],
        "doubtful": [
            {
                "option": change.option,
                "value": change.shown,
                "symptom": shown_symptom(symptom),
                "likely_bugs": count,
            }
            for change, (symptom, count) in report.doubtful.items()
        ],
        "stopped": report.stopped,
        "unfinished": [p.name for p in report.unfinished],
        "coverage": report.coverage().to_json(),
        "min_compared": floor,
        "verdict": {"exit_code": exit_code(report, floor), "summary": last_line(report, floor)},
        "scenarios": scenarios,
    }


def write_json(report: Report, path: Path, floor: float = 0.0) -> None:
    """Write the JSON report whole; text no UTF-8 holds is kept as its `\\u` escape."""
    data = to_json_report(report, floor)
    write_whole(path, json.dumps(data, indent=2, ensure_ascii=True) + "\n")


def write_junit(report: Report, path: Path, floor: float = 0.0) -> None:
    """JUnit XML: a test case per scenario; a likely bug is a failure, a
    scenario that could not be followed an error (SKIPPED a skip), and a
    run that compared too little a failing test case of its own; the
    suite's properties hold the proposal, each deviation's scenarios, what
    the replays under the proposal compared and the verdict, a test case's
    output what its replay did not compare."""
    suite = ET.Element("testsuite", name=visible(f"optchat-spec diagnose ({report.engine})"))
    properties = add(suite, "properties")
    pairs = [
        ("runner_version", __version__),
        ("engine", report.engine),
        ("proposed", json.dumps(proposal_of(report.proposed), sort_keys=True)),
    ]
    pairs += [(f"deviation {c.said()}", names(paths)) for c, paths in report.needing.items()]
    pairs += [
        (f"cause {k} ({one.id}): {one.said()}", names([d.path for d in g] or after(one)))
        for k, (one, g) in enumerate(causes(report), start=1)
    ]
    pairs += [
        (f"doubtful {c.said()}", f"{shown_symptom(sym)}: unexplained in {n} likely bugs")
        for c, (sym, n) in report.doubtful.items()
    ]
    if report.stopped:
        pairs.append(("stopped", f"{report.stopped}: {names(report.unfinished)} not finished"))
    pairs += compared(report.coverage())
    pairs += verdict_properties(floor, None, exit_code(report, floor), last_line(report, floor))
    for name, value in pairs:
        add(properties, "property", name=name, value=value)
    bugs = {d.path: d for d in report.bugs}
    shrunk = shrunk_from(report)
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
        lines = [
            s.summary
            + " -> "
            + (", ".join(c.said() for c in s.explained_by) or "no change explains it")
            for s in d.steps
        ] + partly(report.covered.get(d.path))
        bug = bugs.get(d.path)
        if bug is not None:
            tally["failures"] += 1
            lines.append(f"under the proposal: {bug.steps[-1].summary}")
            lines += [f"contradicts the proposal: {undone(report, c)}" for c in bug.contradicts]
            lines += [f"shrunk: {c.written} (cause {c.id})" for c in shrunk.get(d.path, [])]
            lines += [said for said in (unnamed_line(report, d.path),) if said is not None]
            add(case, "failure", "\n".join(lines), message=bug.steps[-1].summary, type="likely bug")
        elif d.status in FAULTS:
            tally["errors"] += 1
            add(case, "error", d.reason, message=d.reason.split("\n")[0], type=d.status)
        elif d.status == "SKIPPED":
            tally["skipped"] += 1
            add(case, "skipped", message=f"SKIPPED: {d.reason}")
        elif d.path in report.unfinished:
            tally["skipped"] += 1
            add(case, "skipped", message=f"not finished: the run stopped ({report.stopped})")
        elif lines:
            add(case, "system-out", "\n".join(lines))
    followed_ = {d.path for d in report.diagnoses}
    for left in (p for p in report.unfinished if p not in followed_):
        tally["tests"] += 1
        tally["skipped"] += 1
        case = add(suite, "testcase", classname="diagnose", name=left.stem, file=shown(left))
        add(case, "skipped", message=f"not followed: the run stopped ({report.stopped})")
    set_tallies(suite, tally, report.coverage().short(floor))
    suite.set("time", f"{report.seconds:.3f}")
    write_whole(path, ET.tostring(suite, encoding="utf-8", xml_declaration=True))
