"""Engines side by side (`optchat-spec matrix REPORT.json ...`): the JSON
reports of `corpus --json` of several engines (or of one engine at several
versions) as one HTML page and one JSON document (bridge/matrix.schema.json).

A row per scenario (the union of the reports', named as reports name them:
`corpus/NAME.jsonl` for the bundled corpus), a column per report, each cell
the scenario's outcome in that report, linked to its divergence page when
the report's run wrote one beside it (`corpus --report DIR --json
DIR/report.json`); above them, each engine's verdict (its run's last line,
coloured as the index page colours it, bridge/outputs/verdicts.py), when
its run began and how long it took, its totals and pass rate, its profile,
the optional parts of SPEC it lacks, what its run compared and delivered,
and the causes its FAILs are of (bridge/checking/causes.py), when its
report gives them; a roll-up by family, a pass rate per engine, each family
unfolding into its scenarios; and, for an engine given in several reports
(the same command, the same name), its history: its runs oldest first, and
what each changed (newly failing, newly passing). Reports of another
corpus version than the newest of them are marked, and left out of a
history. The
page sorts by any column (a click on its heading), worst outcomes first,
and two checkboxes keep only the rows where the engines differ, or only
those with a FAIL (CSS alone: no server, no script).

The reports are untrusted input (they come from other machines): each is
checked whole against bridge/report.schema.json (bridge/formats/schema.py)
before any of it is used, a page is linked only by a name a run writes and
only when the file is there, and every value reaches the page escaped for
where it goes (bridge/outputs/markup.py). The page loads nothing and runs
no script but its own, named by its hash in its Content-Security-Policy."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bridge import __version__
from bridge.checking.coverage import percent
from bridge.formats.capabilities import CAPABILITIES
from bridge.formats.kit import BRIDGE
from bridge.formats.schema import problem
from bridge.formats.usage import REPORT_MOST, UsageError, bounded
from bridge.outputs.json_report import FORMAT as REPORT
from bridge.outputs.markup import escape
from bridge.outputs.verdicts import CSS as COLOURS
from bridge.outputs.verdicts import RED, kind, state
from bridge.outputs.writing import write_whole

FORMAT = "optchat-spec-matrix/1"

WORST_FIRST = ("ERROR", "FAULT", "BAD", "FAIL", "UNEXPECTED PASS", "expected failure", "SKIPPED")
"""The outcomes in the order a column sorts them, then `ok`, then a scenario
the report does not have."""


@dataclass(frozen=True)
class Report:
    """A report as given, and what it holds, checked."""

    path: Path
    data: dict[str, Any]


def no_constant(word: str) -> None:
    raise ValueError(f"{word} is not a JSON number")


def read_report(path: Path) -> Report:
    """The JSON report at `path`, checked against bridge/report.schema.json;
    UsageError, in one line naming the file, for anything else."""
    try:
        text = bounded(path, REPORT_MOST).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot be read: {error}") from None
    try:
        data = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as error:
        raise UsageError(f"{path}: not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != REPORT:
        raise UsageError(f"{path}: not a JSON report of `corpus --json` ({REPORT})")
    try:
        found = problem(data, BRIDGE / "report.schema.json")
    except RecursionError:
        found = "nested too deeply"
    if found is not None:
        raise UsageError(f"{path}: not a report a run writes (bridge/report.schema.json): {found}")
    return Report(path, data)


def label(report: Report) -> str:
    """A column's heading: the name the engine gave itself, else its command."""
    return str(report.data["engine_name"] or report.data["engine"])


def lacks(data: dict[str, Any]) -> list[str]:
    """The optional parts of SPEC the engine lacks, as its run counted them."""
    return [item["capability"] for item in data["coverage"]["not_implemented"]]


def linked(report: Report, page: str | None, out: Path) -> str | None:
    """The path from the matrix page to a scenario's divergence page, when the
    report's run wrote one beside the report (and it is there)."""
    if page is None or not (report.path.parent / page).is_file():
        return None
    return Path(os.path.relpath(report.path.parent / page, out.parent)).as_posix()


def cell(case: dict[str, Any], report: Report, out: Path) -> dict[str, Any]:
    found = case["divergence"]
    return {
        "status": case["status"],
        "reason": case["reason"].split("\n")[0],
        "field": found["field"] if found else None,
        "spec_section": found["spec_section"] if found else None,
        "page": linked(report, case["page"], out),
        "cause": case.get("cause"),
    }


def engine(report: Report) -> dict[str, Any]:
    data = report.data
    coverage = data["coverage"]
    delivery = coverage["delivery"]
    return {
        "report": str(report.path),
        "label": label(report),
        "engine": data["engine"],
        "engine_name": data["engine_name"],
        "runner_version": data["runner_version"],
        "corpus_version": data["corpus_version"],
        "agreement": data["agreement"],
        "profile": data["profile"],
        "lacks": lacks(data),
        "compared": {k: coverage[k] for k in ("events", "compared", "fraction")},
        "delivered": {k: delivery[k] for k in ("events", "delivered", "fraction")},
        "counts": data["counts"],
        "scenarios": len(data["scenarios"]),
        "passed": data["counts"].get("ok", 0),
        "verdict": data["verdict"],
        "started": data.get("started"),
        "seconds": data["seconds"],
        "causes": [
            {"id": c["id"], "said": c["said"], "scenarios": len(c["scenarios"])}
            for c in data.get("causes", [])
        ],
    }


def series(report: Report) -> tuple[str, str]:
    """What makes reports one engine's: its command and the name it gives itself."""
    return str(report.data["engine"]), str(report.data["engine_name"])


def in_history_order(reports: list[Report]) -> list[Report]:
    """The reports, each engine's together where it first comes, its runs
    oldest first (by when they began; as given when a report does not say)."""
    engines = list(dict.fromkeys(series(r) for r in reports))
    return [
        report
        for one in engines
        for report in sorted(
            (r for r in reports if series(r) == one), key=lambda r: str(r.data.get("started") or "")
        )
    ]


def changed(before: int, after: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the run of column `after` changed from the one of column
    `before`: the scenarios both ran that now fail where they passed, and
    that now pass where they failed."""

    def statuses(k: int) -> dict[str, str]:
        return {row["path"]: row["cells"][k]["status"] for row in rows if row["cells"][k]}

    was, now = statuses(before), statuses(after)
    both = sorted(set(was) & set(now))
    return {
        "from": before,
        "to": after,
        "newly_failing": [p for p in both if was[p] == "ok" and now[p] in RED],
        "newly_passing": [p for p in both if was[p] in RED and now[p] == "ok"],
    }


def named(engine: dict[str, Any]) -> str:
    """An engine by the name it gives itself and its command (all its runs')."""
    name, command = engine["engine_name"], engine["engine"]
    return f"{name} ({command})" if name else str(command)


def newest(engines: list[dict[str, Any]]) -> int | None:
    """The newest corpus version of the reports: the one others are marked against."""
    return max(
        (e["corpus_version"] for e in engines if e["corpus_version"] is not None), default=None
    )


def histories(engines: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each engine given in several reports of the newest corpus version:
    its runs (columns) oldest first, and what each changed."""
    version = newest(engines)
    runs: dict[tuple[str, str], list[int]] = {}
    for k, e in enumerate(engines):
        if e["corpus_version"] == version:
            runs.setdefault((e["engine"], str(e["engine_name"])), []).append(k)
    return [
        {
            "label": named(engines[columns[0]]),
            "columns": columns,
            "changes": [changed(a, b, rows) for a, b in zip(columns, columns[1:], strict=False)],
        }
        for columns in runs.values()
        if len(columns) > 1
    ]


def families(rows: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """Each family: its scenarios, and in each report how many it ran and
    how many of those passed."""
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        family = found.setdefault(
            row["family"],
            {"family": row["family"], "scenarios": 0, "ran": [0] * count, "ok": [0] * count},
        )
        family["scenarios"] += 1
        for k, cell_of in enumerate(row["cells"]):
            if cell_of is not None:
                family["ran"][k] += 1
                family["ok"][k] += cell_of["status"] == "ok"
    return [found[name] for name in sorted(found)]


def told_apart(engines: list[dict[str, Any]]) -> None:
    """Headings that name one engine each: a name two engines give
    themselves gets each one's command, and one engine's runs when they
    began (to the minute), else their report files."""
    for more in (
        lambda e: e["engine"],
        lambda e: (e["started"] or "")[:16].replace("T", " "),
        lambda e: e["report"],
    ):
        labels = [e["label"] for e in engines]
        for e in engines:
            if labels.count(e["label"]) > 1 and more(e):
                e["label"] += f" ({more(e)})"


def matrix(reports: list[Report], out: Path) -> dict[str, Any]:
    """The engines side by side, as the JSON document holds them; links are
    relative to the folder of `out`, the page."""
    reports = in_history_order(reports)
    rows: dict[str, dict[str, Any]] = {}
    for k, report in enumerate(reports):
        for case in report.data["scenarios"]:
            row = rows.setdefault(
                case["path"],
                {"path": case["path"], "family": case["family"], "cells": [None] * len(reports)},
            )
            row["cells"][k] = cell(case, report, out)
            row["family"] = row["family"] or case["family"]  # a SKIPPED one may not say
    versions = sorted({str(r.data["corpus_version"]) for r in reports})
    notes = []
    if len(versions) > 1:
        notes.append(
            f"the reports are of corpus versions {', '.join(versions)}: a scenario of one "
            "name may hold other events in each; those of another version than the newest "
            "are marked, and in no history"
        )
    engines = [engine(r) for r in reports]
    told_apart(engines)
    scenarios = [rows[name] for name in sorted(rows)]
    return {
        "format": FORMAT,
        "runner_version": __version__,
        "engines": engines,
        "families": families(scenarios, len(engines)),
        "histories": histories(engines, scenarios),
        "scenarios": scenarios,
        "notes": notes,
    }


# The page.

CSS = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1400px;padding:0 12px}"
    "table{border-collapse:collapse;margin:8px 0 20px}td,th{padding:2px 10px;text-align:left;"
    "vertical-align:top;border-bottom:1px solid #eee}th button{font:inherit;font-weight:bold;"
    "border:0;background:none;padding:0;cursor:pointer;text-align:left}"
    "th[aria-sort=ascending] button::after{content:' \\25B2'}"
    "th[aria-sort=descending] button::after{content:' \\25BC'}"
    "code{font-size:12px;word-break:break-all}details pre{font-size:12px;white-space:pre-wrap}"
    "summary{cursor:pointer}.family summary{list-style:none}.marked{color:#a60}"
    ".grid{table-layout:fixed;width:100%;margin:0}.grid td:first-child,.grid th:first-child"
    "{width:24%}.grid td:nth-child(2),.grid th:nth-child(2){width:7%}"
    ".family summary td:first-child::before{content:'\\25B6  '}"
    ".family[open] summary td:first-child::before{content:'\\25BC  '}"
    "body:has(#only-differ:checked) tr.same,body:has(#only-fail:checked) tr.passing"
    "{display:none}.filters label{margin-right:18px}"
) + COLOURS
"""The page's own style, then the colours every page gives verdicts and
outcomes; the filters are CSS alone (`:has()`), so they work with no script."""

SCRIPT = """
"use strict";
const table = document.getElementById("matrix");
const body = table.tBodies[0];
let column = -1, descending = false;
function key(row, k) { return row.cells[k].dataset.sort; }
for (const button of table.tHead.querySelectorAll("button")) {
  button.addEventListener("click", () => {
    const k = +button.dataset.column;
    descending = column === k ? !descending : false;
    column = k;
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = key(a, k), y = key(b, k);
      const order = x < y ? -1 : x > y ? 1 : 0;
      const name = key(a, 0) < key(b, 0) ? -1 : 1;
      return (descending ? -order : order) || name;
    });
    body.append(...rows);
    for (const heading of table.tHead.rows[0].cells) heading.removeAttribute("aria-sort");
    button.parentElement.setAttribute("aria-sort", descending ? "descending" : "ascending");
  });
}
"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src '{SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)
"""The page loads nothing and runs no script but SCRIPT, named by its hash."""


def rank(found: dict[str, Any] | None) -> int:
    """Where a cell sorts: the worst outcomes first, a missing scenario last."""
    if found is None:
        return len(WORST_FIRST) + 1
    status = found["status"]
    return WORST_FIRST.index(status) if status in WORST_FIRST else len(WORST_FIRST)


def shown_cell(found: dict[str, Any] | None) -> str:
    if found is None:
        return f'<td class="missing" data-sort="{rank(found)}">not run</td>'
    status = found["status"]
    why = found["reason"]
    if found["field"] is not None:
        section = f" ({found['spec_section']})" if found["spec_section"] else ""
        why = f"field {found['field']}{section}: {why}"
    if found["cause"] is not None:
        why += f" (cause {found['cause']})"
    said = escape(status)
    if found["page"] is not None:
        said = f'<a href="{escape(quote(found["page"]))}">{said}</a>'
    title = f' title="{escape(why)}"' if why else ""
    return f'<td class="{escape(kind(status))}" data-sort="{rank(found)}"{title}>{said}</td>'


def when(data: dict[str, Any]) -> str:
    """When a run began (UTC, to the minute) and how long it took."""
    seconds = data["seconds"]
    took = f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {seconds % 60:.0f} s"
    began = data["started"]
    return (f"{escape(began[:16].replace('T', ' '))} UTC, " if began else "") + took


def rate(ok: int, of: int) -> str:
    """A pass rate: how many of how many, and the share."""
    return f"{ok:,} of {of:,} ok ({percent(ok, of)})"


def engine_row(data: dict[str, Any], version: Any) -> str:
    compared, delivered = data["compared"], data["delivered"]
    counts = ", ".join(f"{n} {escape(status)}" for status, n in data["counts"].items())
    missing = data["lacks"]
    lacked = (
        "lacks " + ", ".join(f"<code>{escape(name)}</code>" for name in missing)
        if missing
        else f"all {len(CAPABILITIES)}"
    )
    profile = json.dumps(data["profile"], indent=1, ensure_ascii=True)
    named = f" (<code>{escape(data['engine'])}</code>)" if data["engine_name"] else ""
    verdict = data["verdict"]
    other = data["corpus_version"] != version
    corpus = f"corpus version {escape(data['corpus_version'])}"
    if other:
        corpus = f'<b class="marked">{corpus}: not the newest, {escape(version)}</b>'
    return (
        f"<tr><td><b><bdi>{escape(data['label'])}</bdi></b>{named}<br>"
        f"<code>{escape(data['report'])}</code></td>"
        f'<td><span class="verdict {state(verdict["exit_code"])}"><bdi>'
        f"{escape(verdict['summary'])}</bdi></span><br>{when(data)}</td>"
        f"<td>{rate(data['passed'], data['scenarios'])}<br>{counts}</td>"
        f"<td><bdi>{escape(data['agreement'])}</bdi><details><summary>profile</summary>"
        f"<pre>{escape(profile)}</pre></details></td><td>{lacked}</td>"
        f"<td>{compared['compared']:,} of {compared['events']:,} "
        f"({percent(compared['compared'], compared['events'])})</td>"
        f"<td>{delivered['delivered']:,} of {delivered['events']:,} "
        f"({percent(delivered['delivered'], delivered['events'])})</td>"
        f"<td>{escape(data['runner_version'])}, {corpus}</td></tr>"
    )


def causes(engines: list[dict[str, Any]]) -> str:
    """Each engine's causes, a row each; nothing when no report gives any."""
    rows = "".join(
        f"<tr><td>{escape(e['label'])}</td><td><code>{escape(c['id'])}</code></td>"
        f"<td>{escape(c['said'])}</td><td>{c['scenarios']:,}</td></tr>"
        for e in engines
        for c in e["causes"]
    )
    if not rows:
        return ""
    return (
        "<h2>The causes</h2><p>Each engine's FAILs, grouped by what makes them fail.</p>"
        "<table><tr><th>engine</th><th>cause</th><th>what fails</th><th>FAILs</th></tr>"
        f"{rows}</table>"
    )


def row_classes(row: dict[str, Any]) -> str:
    """`same` or `differ` (the engines' outcomes, a missing one counted),
    and `failing` or `passing` (whether any engine's is red): what the
    filters hide."""
    statuses = {c["status"] if c else None for c in row["cells"]}
    red = any(status in RED for status in statuses)
    return f"{'differ' if len(statuses) > 1 else 'same'} {'failing' if red else 'passing'}"


def scenario_rows(rows: list[dict[str, Any]]) -> str:
    return "".join(
        f'<tr class="{row_classes(row)}">'
        f'<td data-sort="{escape(row["path"])}"><code>{escape(row["path"])}</code></td>'
        f'<td data-sort="{escape(row["family"])}">{escape(row["family"])}</td>'
        + "".join(shown_cell(c) for c in row["cells"])
        + "</tr>"
        for row in rows
    )


def by_family(found: dict[str, Any], heads: str) -> str:
    """The roll-up: each family's pass rate in each engine, a row that
    unfolds into its scenarios (a `<details>` per family, its columns those
    of the heading row above)."""
    parts = []
    for family in found["families"]:
        rates = "".join(
            f'<td class="{"ok" if ok == ran else "FAIL" if ok < ran else "SKIPPED"}">'
            f"{rate(ok, ran)}</td>"
            for ok, ran in zip(family["ok"], family["ran"], strict=True)
        )
        rows = [r for r in found["scenarios"] if r["family"] == family["family"]]
        parts.append(
            f'<details class="family"><summary><table class="grid"><tr><td><b>'
            f"{escape(family['family'])}</b> ({family['scenarios']:,} scenarios)</td>"
            f"<td>pass rate</td>{rates}</tr></table></summary>"
            f'<table class="grid"><tbody>{scenario_rows(rows)}</tbody></table></details>'
        )
    return (
        "<h2>By family</h2><p>Each family's pass rate in each engine; click a family for its "
        f'scenarios.</p><table class="grid"><thead><tr><th>family</th><th></th>{heads}</tr>'
        "</thead></table>" + "".join(parts)
    )


SHOWN = 8
"""How many of the scenarios a run newly fails (or passes) the history names."""


def history(found: dict[str, Any]) -> str:
    """Each engine given in several reports: its runs oldest first, and what
    each changed from the one before."""
    engines = found["engines"]

    def names(paths: list[str]) -> str:
        more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
        return (
            f"{len(paths)}: " + ", ".join(f"<code>{escape(p)}</code>" for p in paths[:SHOWN]) + more
            if paths
            else "none"
        )

    parts = []
    for one in found["histories"]:
        steps = []
        for k, column in enumerate(one["columns"]):
            e = engines[column]
            said = (
                f'<span class="verdict {state(e["verdict"]["exit_code"])}"><bdi>'
                f"{escape(e['verdict']['summary'])}</bdi></span> ({when(e)}; "
                f"<code>{escape(e['report'])}</code>)"
            )
            if k:
                change = one["changes"][k - 1]
                said += (
                    f'<br><span class="FAIL">newly failing</span>: {names(change["newly_failing"])}'
                    f'; <span class="ok">newly passing</span>: {names(change["newly_passing"])}'
                )
            steps.append(f"<li>{said}</li>")
        parts.append(f"<h3><bdi>{escape(one['label'])}</bdi></h3><ol>{''.join(steps)}</ol>")
    if not parts:
        return ""
    return (
        "<h2>History</h2><p>An engine's runs, oldest first, and what each changed.</p>"
        + "".join(parts)
    )


def page(found: dict[str, Any]) -> str:
    """The matrix as one HTML document."""
    engines = found["engines"]
    heads = "".join(
        f'<th><button data-column="{k + 2}"><bdi>{escape(e["label"])}</bdi></button></th>'
        for k, e in enumerate(engines)
    )
    plain = "".join(f"<th><bdi>{escape(e['label'])}</bdi></th>" for e in engines)
    notes = "".join(f"<p><b>Note:</b> {escape(note)}.</p>" for note in found["notes"])
    title = f"optchat-spec: {len(engines)} engines side by side"
    version = newest(engines)
    passed = sum(e["verdict"]["exit_code"] == 0 for e in engines)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f"<p>{len(found['scenarios'])} scenarios; {passed} of {len(engines)} runs passed; runner "
        f"{escape(found['runner_version'])}. A cell is the scenario's outcome in that engine's "
        "report, linked to its divergence page where the run wrote one; hover for why. Click a "
        "heading to sort by it.</p>"
        f"{notes}<h2>The engines</h2>"
        "<table><tr><th>engine</th><th>verdict (the run's last line), when</th><th>totals</th>"
        "<th>profile (SPEC 10)</th><th>optional parts</th><th>events compared</th>"
        "<th>events delivered</th><th>runner</th></tr>"
        + "".join(engine_row(e, version) for e in engines)
        + "</table>"
        + history(found)
        + causes(engines)
        + '<p class="filters"><label><input type="checkbox" id="only-differ"> only the '
        'scenarios where the engines differ</label><label><input type="checkbox" id="only-fail">'
        " only the scenarios with a FAIL</label></p>"
        + by_family(found, plain)
        + "<h2>The scenarios</h2>"
        '<table id="matrix"><thead><tr><th><button data-column="0">scenario</button></th>'
        f'<th><button data-column="1">family</button></th>{heads}</tr></thead>'
        f"<tbody>{scenario_rows(found['scenarios'])}</tbody></table>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )


def write_matrix(reports: list[Path], out: Path, json_out: Path | None) -> dict[str, Any]:
    """Read and check every report, then write the page (and the JSON
    document); the matrix written."""
    found = matrix([read_report(path) for path in reports], out)
    write_whole(out, page(found))
    if json_out is not None:
        write_whole(json_out, json.dumps(found, indent=1, ensure_ascii=True) + "\n")
    return found
