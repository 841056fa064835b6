"""The reports of a campaign's shards (`corpus --shard K/N --json/--junit-xml`)
joined into one, as if one run had checked every scenario: the JSON reports
(bridge/report.schema.json) into one JSON report, the JUnit reports into one
test suite. What ran must be the same in all (runner, corpus, engine,
profile, the floor `--min-compared`); a scenario in two of them means the
shards overlapped. The joined run's time is the longest shard's (the shards
ran side by side). Its verdict is made as one run makes it
(bridge/runs/tally.py), from the scenarios' outcomes and the shards'
summed coverage held to the floor: a shard leaves what it compared to the
joined report, so a campaign that compared nothing, or too little, is red
there."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from bridge.checking.beyond import beyond_json
from bridge.checking.causes import Signature, parse
from bridge.checking.coverage import Coverage
from bridge.formats.kit import BRIDGE
from bridge.formats.profile import ProfileError, declared
from bridge.formats.profile import parse as parse_profile
from bridge.formats.schema import problem
from bridge.formats.terminal import cut
from bridge.formats.usage import REPORT_MOST, UsageError, bounded
from bridge.outputs.json_report import FORMAT
from bridge.outputs.junit import is_run_case, outcome_of, set_tallies, shows_two_causes
from bridge.outputs.writing import write_whole
from bridge.runs.tally import Tally
from scenarios.shard import MAX_SHARDS

REPORT = BRIDGE / "report.schema.json"

SAME = ("runner_version", "corpus_version", "engine", "min_compared")
"""What every shard's report must say alike."""

TALLIES = ("tests", "failures", "errors", "skipped")
"""A JUnit test suite's counts, summed."""


def read_text(path: Path) -> str:
    try:
        return bounded(path, REPORT_MOST).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot be read: {error}") from None


def kind(path: Path, text: str) -> str:
    """`json` or `junit`, from what the file holds."""
    start = text.lstrip()[:1]
    if start == "{":
        return "json"
    if start == "<":
        return "junit"
    raise UsageError(f"{path}: neither a JSON report nor a JUnit XML report")


def merge_files(out: Path, inputs: list[Path]) -> tuple[dict[str, int], int, str]:
    """Join the reports `inputs` into `out` (written whole); each outcome's
    count, and the joined run's exit code and last line. UsageError, in one
    line naming the file, for a report that cannot be joined."""
    texts = [(path, read_text(path)) for path in inputs]
    kinds = {path: kind(path, text) for path, text in texts}
    if len(set(kinds.values())) > 1:
        raise UsageError(
            "the reports are not all of one kind: "
            + ", ".join(f"{path} is {found}" for path, found in kinds.items())
        )
    if kinds[inputs[0]] == "json":
        merged = merge_json([(path, parse_json(path, text)) for path, text in texts])
        write_whole(out, json.dumps(merged, indent=2, ensure_ascii=True) + "\n")
        verdict = merged["verdict"]
        return dict(merged["counts"]), verdict["exit_code"], verdict["summary"]
    suite = merge_junit([(path, parse_junit(path, text)) for path, text in texts])
    write_whole(out, ET.tostring(suite, encoding="utf-8", xml_declaration=True))
    said = properties(suite)
    counts = {name: int(suite.get(name, "0")) for name in TALLIES}
    return counts, int(said["exit_code"]), said["verdict"]


def judged(
    path: Path,
    counts: dict[str, int],
    coverage: Coverage,
    floor: float,
    ran: tuple[str, Any, int, int],
) -> tuple[int, str, str | None]:
    """The joined run's verdict, made as one run makes it (bridge/runs/tally.py)
    from its outcomes' counts and summed coverage: its exit code, its last
    line, and why it compared too little (None when it did not). `ran` is
    the engine, its profile, the number of the FAILs' causes and of the
    FAILs that show a second cause's bug too; `path` is the report whose
    profile is read."""
    engine, profile, causes, twice = ran
    try:
        words = "" if profile is None else declared(parse_profile(profile, "its profile"))
    except ProfileError as error:
        raise UsageError(f"{path}: {error}") from None
    tally = Tally(sum(counts.values()), counts, coverage, floor)
    return tally.code(), tally.summary(engine, words, causes, twice), tally.short()


def floor_of(path: Path, value: Any) -> float:
    """A report's `--min-compared` (0 when it gives none); UsageError when not a fraction."""
    found = number(path, value, "min_compared")
    if found > 1:
        raise UsageError(f"{path}: its min_compared is {value!r}, not a fraction from 0 to 1")
    return found


def parse_json(path: Path, text: str) -> dict[str, Any]:
    """A shard's JSON report, held to the form a run writes
    (bridge/report.schema.json); UsageError naming the file and the first
    thing that differs."""
    try:
        report = json.loads(text, parse_constant=no_constant)
    except ValueError as error:
        raise UsageError(f"{path}: not JSON: {error}") from None
    if not isinstance(report, dict) or report.get("format") != FORMAT:
        raise UsageError(f"{path}: not an {FORMAT} report (its format is not {FORMAT!r})")
    wrong = problem(report, REPORT)
    if wrong is not None:
        raise UsageError(f"{path}: not a report as bridge/report.schema.json has it: {wrong}")
    return report


def no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def alike(reports: list[tuple[Path, dict[str, Any]]], field: str, skip_empty: bool) -> Any:
    """The value every report gives `field` (reports giving none are left
    out when `skip_empty`); UsageError naming the two that differ."""
    given = [(path, r.get(field)) for path, r in reports if not skip_empty or r.get(field)]
    for path, value in given[1:]:
        if value != given[0][1]:
            raise UsageError(
                f"{path}: its {field} is {json.dumps(value)} but {given[0][0]}'s is "
                f"{json.dumps(given[0][1])}: not shards of one run"
            )
    return given[0][1] if given else None


def every_shard(named: list[tuple[Path, Any]]) -> None:
    """UsageError unless the reports are shards 1/N to N/N of one campaign,
    each once (a report of a whole run, naming no shard, is 1/1): a
    campaign joined without one of its shards is not the whole run."""
    seen: dict[int, Path] = {}
    count, first = 0, named[0][0]
    for path, said in named:
        found = re.fullmatch(r"([0-9]{1,9})/([0-9]{1,9})", str(said or "1/1"))
        index, of = (int(found[1]), int(found[2])) if found else (0, 0)
        if not 1 <= index <= of <= MAX_SHARDS:
            raise UsageError(f"{path}: its shard {cut(repr(said))} is not K/N, K from 1 to N")
        if not count:
            count, first = of, path
        if of != count:
            raise UsageError(
                f"{path}: shard {index}/{of} but {first} is of {count} shards: "
                "not shards of one run"
            )
        if index in seen:
            raise UsageError(f"{path}: shard {index}/{of} is {seen[index]} too: the shards overlap")
        seen[index] = path
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        listed = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise UsageError(
            f"shard {listed} of the campaign is not among the reports: "
            "the joined run would not be the whole run"
        )


def no_overlap(cases: list[tuple[Path, str]]) -> None:
    """UsageError when one scenario is in two reports."""
    seen: dict[str, Path] = {}
    for path, name in cases:
        if name in seen:
            raise UsageError(f"{path}: scenario {name} is in {seen[name]} too: the shards overlap")
        seen[name] = path


def merge_json(reports: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """One JSON report of every shard's scenarios, its counts recounted."""
    merged = dict(reports[0][1])
    for field in SAME:
        merged[field] = alike(reports, field, skip_empty=False)
    for field in ("engine_name", "profile", "agreement"):
        merged[field] = alike(reports, field, skip_empty=True)
    merged["agreement"] = merged["agreement"] or ""
    every_shard([(path, r.get("shard")) for path, r in reports])
    for path, r in reports:
        for case in r["scenarios"]:
            consistent(path, case)
    no_overlap([(path, case["path"]) for path, r in reports for case in r["scenarios"]])
    cases = [case for _, r in reports for case in r["scenarios"]]
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.get("status")] = counts.get(case.get("status"), 0) + 1
    merged["causes"] = merged_causes(reports, cases)
    if any("beyond" in r for _, r in reports):
        merged["beyond"] = beyond_json(merged["causes"], cases)
    merged["scenarios"] = cases
    merged["counts"] = counts
    merged["coverage"] = summed_coverage(reports)
    merged["seconds"] = max(number(path, r.get("seconds"), "seconds") for path, r in reports)
    merged["started"] = min(
        (str(r["started"]) for _, r in reports if r.get("started")), default=None
    )
    floor = floor_of(reports[0][0], merged["min_compared"])
    twice = len({name for cause in merged["causes"] for name in cause.get("after") or []})
    code, summary, _ = judged(
        reports[0][0],
        counts,
        Coverage.from_json(merged["coverage"]),
        floor,
        (str(merged["engine"]), merged["profile"], len(merged["causes"]), twice),
    )
    merged["min_compared"], merged["shard"] = floor, None
    merged["verdict"] = {"exit_code": code, "summary": summary}
    return merged


def merged_causes(
    reports: list[tuple[Path, dict[str, Any]]], cases: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The shards' causes as one run's (bridge/checking/causes.py): those of
    one id, or both shrunk to kinds of events of which one holds the
    other's (`Signature.same_cause`), are one, named by the one that keeps
    fewest, with every shard's scenarios (and those its bug shows in after
    another cause's, `after`); each scenario's `cause` is renamed to match."""
    # Each cause kept: [its signature, its cause as a shard wrote it], its
    # scenarios from every shard, and the ids the shards gave it.
    groups: list[tuple[list[Any], list[str], set[str]]] = []
    for path, report in reports:
        for cause in report.get("causes") or []:
            try:
                named = parse(str(cause["id"]))
                scenarios = [str(name) for name in cause["scenarios"]]
            except (KeyError, TypeError, ValueError) as error:
                raise UsageError(
                    f"{path}: a cause is not one a run writes (bridge/report.schema.json): {error}"
                ) from None
            group = next((g for g in groups if one_cause(g[0][0], named)), None)
            if group is None:
                groups.append(([named, cause], scenarios, {named.id}))
                continue
            kept, into, ids = group
            into += scenarios
            ids.add(named.id)
            if len(named.keeps or ()) < len(kept[0].keeps or ()):
                kept[:] = [named, cause]
    groups = joined_unshrunk(groups)
    renamed = {old: kept[0].id for kept, _, ids in groups for old in ids}
    for case in cases:
        case["cause"] = renamed.get(case.get("cause") or "", case.get("cause"))
    after: dict[str, list[str]] = {}
    for _, report in reports:
        for cause in report.get("causes") or []:
            shown_after = after.setdefault(renamed[parse(str(cause["id"])).id], [])
            shown_after += [str(name) for name in cause.get("after") or []]
    causes = [
        {**kept[1], "scenarios": into, "after": after[kept[0].id]} for kept, into, _ in groups
    ]
    return sorted(causes, key=lambda c: (-len(c["scenarios"]), c["id"]))


def joined_unshrunk(
    groups: list[tuple[list[Any], list[str], set[str]]],
) -> list[tuple[list[Any], list[str], set[str]]]:
    """The merged causes with each one no shard shrank joined to the cause
    shrunk from the same first divergence, when there is exactly one such:
    one run would have put its scenarios there (causes.py `group`, a key
    whose shrinks named one cause). With two or more, its scenarios could be
    of either, and it stays a cause of its own, as one run leaves it."""
    out = [g for g in groups if g[0][0].keeps is not None]
    for group in (g for g in groups if g[0][0].keeps is None):
        key = group[0][0]
        shrunk = [g for g in out if g[0][0].keeps is not None and g[0][0].provisional() == key]
        if len(shrunk) == 1:
            shrunk[0][1].extend(group[1])
            shrunk[0][2].update(group[2])
        else:
            out.append(group)
    return out


def one_cause(a: Signature, b: Signature) -> bool:
    """Whether two shards' causes are one: the same, or both shrunk and
    `same_cause` (a cause not shrunk is one only with itself)."""
    return a.id == b.id or (a.keeps is not None and b.keeps is not None and a.same_cause(b))


def consistent(path: Path, case: dict[str, Any]) -> None:
    """UsageError when a scenario's coverage counts contradict each other:
    more compared than it has events, more delivered than owed, or more
    than its one replay ended."""
    coverage = case.get("coverage")
    if not isinstance(coverage, dict):
        return
    delivery = coverage.get("delivery") or {}
    pairs = (
        ("compared", coverage.get("compared"), "events", coverage.get("events")),
        ("delivered", delivery.get("delivered"), "events to deliver", delivery.get("events")),
        ("replays ended", delivery.get("scenarios"), "replays", 1),
    )
    for part_name, part, whole_name, whole in pairs:
        if isinstance(part, int) and isinstance(whole, int) and part > whole:
            raise UsageError(
                f"{path}: scenario {cut(repr(case.get('path')))} counts {part} {part_name} "
                f"of {whole} {whole_name}: counts no run writes"
            )


def summed_coverage(reports: list[tuple[Path, dict[str, Any]]]) -> dict[str, Any]:
    """The run's coverage, as one run sums it: its scenarios' coverages
    (bridge/checking/coverage.py), in the shards' order."""
    total = Coverage()
    for path, report in reports:
        for case in report["scenarios"]:
            if case.get("coverage") is None:
                continue
            try:
                total += Coverage.from_json(case["coverage"])
            except (KeyError, TypeError, ValueError) as error:
                raise UsageError(
                    f"{path}: the coverage of {case['path']} is not one a run writes "
                    f"(bridge/report.schema.json): {error!r}"
                ) from None
    return total.to_json()


def number(path: Path, value: Any, name: str) -> float:
    """A report's count or time (0 when absent); UsageError when not a number."""
    try:
        found = float(value or 0)
    except (TypeError, ValueError):
        found = -1.0
    if not 0 <= found < float("inf"):
        raise UsageError(f"{path}: its {name} is {value!r}, not a number of zero or more")
    return found


def count(path: Path, value: Any, name: str) -> int:
    """A JUnit report's count (0 when absent); UsageError when not a whole
    number of zero or more, written in digits."""
    text = "0" if value is None or value == "" else str(value)
    if re.fullmatch(r"[0-9]{1,18}", text) is None:
        raise UsageError(
            f"{path}: its {name} is {cut(repr(value))}, not a whole number of zero or more"
        )
    return int(text)


def parse_junit(path: Path, text: str) -> ET.Element:
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as error:
        raise UsageError(f"{path}: not XML: {error}") from None
    if root.tag != "testsuite":
        raise UsageError(f"{path}: not a JUnit report of a corpus run (no <testsuite> at its top)")
    return root


def properties(suite: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in suite.iterfind("properties/property")}


COUNTED = (
    "events",
    "events_compared",
    "events_to_deliver",
    "events_delivered",
    "scenarios_replayed_to_the_end",
)
"""The properties a run counts (bridge/outputs/junit.py `compared`), summed
over the shards; the fractions follow from them. The run's sentences
(`coverage`, `not_implemented`) cannot be summed and are left out."""

FRACTIONS = {
    "fraction_compared": ("events_compared", "events"),
    "fraction_delivered": ("events_delivered", "events_to_deliver"),
}
"""Each fraction property, as the counted properties it is the ratio of."""


def summed(holder: ET.Element, said: list[tuple[Path, dict[str, str]]]) -> None:
    """The counted properties of `holder` made the shards' sums (each shard's
    report named with its properties)."""
    for path, s in said:
        for part, whole in FRACTIONS.values():
            if count(path, s.get(part), part) > count(path, s.get(whole), whole):
                raise UsageError(
                    f"{path}: its {part} ({s.get(part)}) is more than its {whole} "
                    f"({s.get(whole)}): counts no run writes"
                )
    totals = {name: sum(count(path, s.get(name), name) for path, s in said) for name in COUNTED}
    for item in list(holder):
        name = item.get("name", "")
        if name in ("coverage", "not_implemented"):
            holder.remove(item)
        elif name in totals:
            item.set("value", str(totals[name]))
        elif name in FRACTIONS:
            part, whole = (totals[key] for key in FRACTIONS[name])
            item.set("value", f"{part / whole if whole else 1.0:.6f}")


def every_cause(holder: ET.Element, suites: list[ET.Element]) -> int:
    """The `cause` properties of `holder` made every shard's, one per id (what
    its value says before `: `), and `causes` their count
    (bridge/outputs/junit.py); that count."""
    said: dict[str, str] = {}
    for suite in suites:
        for item in suite.iterfind("properties/property"):
            if item.get("name") == "cause":
                value = item.get("value", "")
                said.setdefault(value.split(": ", 1)[0], value)
    for item in list(holder):
        if item.get("name") in ("cause", "causes"):
            holder.remove(item)
    ET.SubElement(holder, "property", name="causes", value=str(len(said)))
    for value in said.values():
        ET.SubElement(holder, "property", name="cause", value=value)
    return len(said)


def merge_junit(suites: list[tuple[Path, ET.Element]]) -> ET.Element:
    """One test suite of every shard's test cases, its counts summed; what
    ran (its properties) as a shard that ran a scenario says it (an empty
    shard learnt no engine name or profile); its verdict made again, the
    FAILs showing two causes' bugs counted from their test cases
    (bridge/outputs/junit.py `shows_two_causes`)."""
    first_path, first = next(
        ((path, suite) for path, suite in suites if suite.find("testcase") is not None), suites[0]
    )
    said = properties(first)
    for path, suite in suites:
        theirs = properties(suite)
        for name in SAME:
            if theirs.get(name) != said.get(name):
                raise UsageError(
                    f"{path}: its {name} is {theirs.get(name)!r} but {first_path}'s is "
                    f"{said.get(name)!r}: not shards of one run"
                )
    merged = ET.Element("testsuite", {k: v for k, v in first.attrib.items() if k not in TALLIES})
    holder = first.find("properties")
    if holder is None:
        holder = ET.Element("properties")
    merged.append(holder)
    every_shard([(path, properties(suite).get("shard")) for path, suite in suites])
    summed(holder, [(path, properties(suite)) for path, suite in suites])
    causes = every_cause(holder, [suite for _, suite in suites])
    every = [(path, case) for path, suite in suites for case in suite.iterfind("testcase")]
    cases = [(path, case) for path, case in every if not is_run_case(case)]
    no_overlap([(path, case.get("file") or case.get("name", "")) for path, case in cases])
    counts: dict[str, int] = {}
    for _, case in cases:
        merged.append(case)
        seen = outcome_of(case)
        counts[seen] = counts.get(seen, 0) + 1
    tallies = {name: sum(count(path, s.get(name), name) for path, s in suites) for name in TALLIES}
    # A run's own failing case is made again from the sum, not kept from a report.
    tallies["tests"] -= len(every) - len(cases)
    tallies["failures"] -= len(every) - len(cases)
    totals = properties(merged)
    coverage = Coverage(
        events=int(totals.get("events") or 0),
        compared=int(totals.get("events_compared") or 0),
        ended=int(totals.get("scenarios_replayed_to_the_end") or 0),
    )
    try:
        profile = json.loads(totals["profile"]) if totals.get("profile") else None
    except ValueError:
        raise UsageError(f"{first_path}: its profile property is not JSON") from None
    code, summary, short = judged(
        first_path,
        counts,
        coverage,
        floor_of(first_path, totals.get("min_compared")),
        (totals.get("engine", ""), profile, causes, sum(shows_two_causes(c) for _, c in cases)),
    )
    for name, value in (("shard", ""), ("exit_code", str(code)), ("verdict", summary)):
        item = next((i for i in holder if i.get("name") == name), None)
        if item is None:
            item = ET.SubElement(holder, "property", name=name)
        item.set("value", value)
    set_tallies(merged, tallies, short)
    merged.set("time", f"{max(number(path, s.get('time'), 'time') for path, s in suites):.3f}")
    return merged
