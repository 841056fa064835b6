"""Engines side by side (`optchat-spec matrix REPORT.json ...`): the JSON
reports of `corpus --json` of several engines (or of one engine at several
versions) as one HTML page and one JSON document (bridge/matrix.schema.json).

A row per scenario (the union of the reports', named as reports name them:
`corpus/NAME.jsonl` for the bundled corpus), a column per report, each cell
the scenario's outcome in that report, linked to its divergence page when
the report's run wrote one beside it (`corpus --report DIR --json
DIR/report.json`); above them, each engine's profile, the optional parts of
SPEC it lacks, what its run compared and delivered, its counts, and the
causes its FAILs are of (bridge/checking/causes.py), when its report gives
them, a row each. The page sorts by any column (a click on its heading),
worst outcomes first.

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
        "seconds": data["seconds"],
        "causes": [
            {"id": c["id"], "said": c["said"], "scenarios": len(c["scenarios"])}
            for c in data.get("causes", [])
        ],
    }


def matrix(reports: list[Report], out: Path) -> dict[str, Any]:
    """The engines side by side, as the JSON document holds them; links are
    relative to the folder of `out`, the page."""
    rows: dict[str, dict[str, Any]] = {}
    for k, report in enumerate(reports):
        for case in report.data["scenarios"]:
            row = rows.setdefault(
                case["path"],
                {"path": case["path"], "family": case["family"], "cells": [None] * len(reports)},
            )
            row["cells"][k] = cell(case, report, out)
    versions = sorted({str(r.data["corpus_version"]) for r in reports})
    notes = []
    if len(versions) > 1:
        notes.append(
            f"the reports are of corpus versions {', '.join(versions)}: a scenario of one "
            "name may hold other events in each"
        )
    engines = [engine(r) for r in reports]
    labels = [e["label"] for e in engines]
    for e in engines:
        if labels.count(e["label"]) > 1:  # one engine's reports: told apart by their files
            e["label"] += f" ({e['report']})"
    return {
        "format": FORMAT,
        "runner_version": __version__,
        "engines": engines,
        "scenarios": [rows[name] for name in sorted(rows)],
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
    ".ok{color:#070}.FAIL,.FAULT,.BAD,.ERROR,.UNEXPECTED-PASS{color:#b00;font-weight:bold}"
    ".SKIPPED,.expected-failure,.missing{color:#777}"
    "code{font-size:12px;word-break:break-all}details pre{font-size:12px;white-space:pre-wrap}"
)

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
    kind = escape(status.replace(" ", "-"))
    title = f' title="{escape(why)}"' if why else ""
    return f'<td class="{kind}" data-sort="{rank(found)}"{title}>{said}</td>'


def engine_row(data: dict[str, Any]) -> str:
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
    return (
        f"<tr><td><b>{escape(data['label'])}</b>{named}<br><code>{escape(data['report'])}</code>"
        f"</td><td>{escape(data['agreement'])}<details><summary>profile</summary>"
        f"<pre>{escape(profile)}</pre></details></td><td>{lacked}</td>"
        f"<td>{compared['compared']:,} of {compared['events']:,} "
        f"({percent(compared['compared'], compared['events'])})</td>"
        f"<td>{delivered['delivered']:,} of {delivered['events']:,} "
        f"({percent(delivered['delivered'], delivered['events'])})</td>"
        f"<td>{counts}</td><td>{escape(data['runner_version'])}, corpus version "
        f"{escape(data['corpus_version'])}</td></tr>"
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


def page(found: dict[str, Any]) -> str:
    """The matrix as one HTML document."""
    engines = found["engines"]
    heads = "".join(
        f'<th><button data-column="{k + 2}">{escape(e["label"])}</button></th>'
        for k, e in enumerate(engines)
    )
    rows = "".join(
        f'<tr><td data-sort="{escape(row["path"])}"><code>{escape(row["path"])}</code></td>'
        f'<td data-sort="{escape(row["family"])}">{escape(row["family"])}</td>'
        + "".join(shown_cell(c) for c in row["cells"])
        + "</tr>"
        for row in found["scenarios"]
    )
    notes = "".join(f"<p><b>Note:</b> {escape(note)}.</p>" for note in found["notes"])
    title = f"optchat-spec: {len(engines)} engines side by side"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f"<p>{len(found['scenarios'])} scenarios; runner {escape(found['runner_version'])}. "
        "A cell is the scenario's outcome in that engine's report, linked to its divergence "
        "page where the run wrote one; hover for why. Click a heading to sort by it.</p>"
        f"{notes}<h2>The engines</h2>"
        "<table><tr><th>engine</th><th>profile (SPEC 10)</th><th>optional parts</th>"
        "<th>events compared</th><th>events delivered</th><th>outcomes</th><th>runner</th></tr>"
        + "".join(engine_row(e) for e in engines)
        + "</table>"
        + causes(engines)
        + "<h2>The scenarios</h2>"
        '<table id="matrix"><thead><tr><th><button data-column="0">scenario</button></th>'
        f'<th><button data-column="1">family</button></th>{heads}</tr></thead>'
        f"<tbody>{rows}</tbody></table><script>{SCRIPT}</script></body></html>\n"
    )


def write_matrix(reports: list[Path], out: Path, json_out: Path | None) -> dict[str, Any]:
    """Read and check every report, then write the page (and the JSON
    document); the matrix written."""
    found = matrix([read_report(path) for path in reports], out)
    write_whole(out, page(found))
    if json_out is not None:
        write_whole(json_out, json.dumps(found, indent=1, ensure_ascii=True) + "\n")
    return found
