"""The front page of `corpus --report DIR`: the causes of the FAILs
(bridge/checking/causes.py), then one row per scenario checked, with its
outcome, its cause, its first divergence (field, SPEC section, where, the
values where they first differ), how many of its events were compared and
delivered under the profile, and a link to its page, when it has one."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from bridge import __version__
from bridge.checking.coverage import percent
from bridge.checking.verdict import Verdict, outcome
from bridge.formats.kit import shown
from bridge.outputs.markup import escape
from bridge.outputs.verdicts import CSS as COLOURS
from bridge.outputs.verdicts import state
from bridge.outputs.writing import write_whole
from bridge.runs.corpus import Run

CSS = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 12px}"
    "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;vertical-align:top}"
    "tr:nth-child(even){background:#f4f4f4}code{font-size:12px;word-break:break-all}"
) + COLOURS
"""The page's own style, then the colours every page gives verdicts and
outcomes (the matrix's too)."""
POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
"""The index loads nothing and runs no script at all."""


def first_divergence(verdict: Verdict) -> str:
    """The first divergence as a table cell: the field, its SPEC section,
    and where; or the reason of any other outcome."""
    found = verdict.divergence
    if found is None:
        return escape(verdict.reason.split("\n")[0]) if verdict.status != "ok" else ""
    section = f" ({escape(found['spec_section'])})" if found.get("spec_section") else ""
    where = "the final detail request"
    if found.get("position") is not None:
        where = f"event {found['position']} (file line {found['file_line']})"
    said = f": {escape(found['difference'])}" if found.get("difference") else ""
    return f"field <code>{escape(found['field'])}</code>{section} at {where}{said}"


def compared(verdict: Verdict) -> str:
    """What a scenario's replay compared, as a table cell (bridge/checking/coverage.py)."""
    counted = verdict.coverage
    if counted is None:
        return ""
    share = f"{counted.compared:,} of {counted.events:,}"
    if counted.compared == counted.events and not counted.lacking:
        return share
    share += f" ({100 * counted.fraction():.1f} %)"
    return f'<span title="{escape(counted.summary())}">{share}</span>'


def delivered(verdict: Verdict) -> str:
    """What a scenario's replay delivered under the profile, as a table cell
    (bridge/checking/delivery.py); empty when it stopped before its end."""
    counted = verdict.coverage
    if counted is None or not counted.ended:
        return ""
    return f"{counted.delivered:,} of {counted.owed:,} ({percent(counted.delivered, counted.owed)})"


def row(verdict: Verdict, seen: str, cause: str | None) -> str:
    link = (
        f'<a href="{escape(quote(verdict.page))}">the page</a>' if verdict.page is not None else ""
    )
    named = f'<a href="#{escape(quote(cause))}"><code>{escape(cause)}</code></a>' if cause else ""
    return (
        f"<tr><td><code>{escape(shown(verdict.path))}</code></td>"
        f'<td class="{escape(seen.replace(" ", "-"))}">{escape(seen)}</td>'
        f"<td>{named}</td><td>{first_divergence(verdict)}</td><td>{compared(verdict)}</td>"
        f"<td>{delivered(verdict)}</td><td>{link}</td></tr>"
    )


SHOWN = 12
"""How many of a cause's scenarios its row names."""


def causes_table(run: Run) -> str:
    """The causes of the run's FAILs (bridge/checking/causes.py), a row each:
    its id, what it is, its scenarios and its shrunk scenario."""
    if not run.causes:
        return ""
    fails = sum(len(c.scenarios) for c in run.causes)
    rows = []
    for cause in run.causes:
        names = [Path(name).name for name in cause.scenarios]
        more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
        shrunk = ""
        if cause.written is not None and cause.shrunk is not None:
            shrunk = (
                f"<code>{escape(cause.written)}</code> ({len(cause.shrunk.events)} events, "
                f"from {escape(Path(cause.representative or '').name)}'s {cause.events_before})"
            )
        after = [Path(name).name for name in cause.after]
        later = (
            f"; and after another cause's bug in {len(after)} (counted there): "
            f"{escape(', '.join(after[:SHOWN]))}{' ...' if len(after) > SHOWN else ''}"
            if after
            else ""
        )
        rows.append(
            f'<tr id="{escape(quote(cause.id))}"><td><code>{escape(cause.id)}</code></td>'
            f"<td>{escape(cause.said())}</td>"
            f"<td>{len(names)}: {escape(', '.join(names[:SHOWN]))}{more}{later}</td>"
            f"<td>{shrunk}</td></tr>"
        )
    causes = f"{len(run.causes)} cause{'' if len(run.causes) == 1 else 's'}"
    return (
        f"<h2>{fails} FAIL from {causes}</h2>"
        "<table><tr><th>cause</th><th>what</th><th>scenarios</th><th>shrunk</th></tr>"
        f"{''.join(rows)}</table><h2>Scenarios</h2>"
    )


def index(run: Run, stopped: str | None = None) -> str:
    """The front page as one HTML document; `stopped`, when the engine
    faulted at its start on every scenario and the run stopped, says why."""
    seen = [outcome(v, run.known) for v in run.verdicts]
    counts = ", ".join(f"{seen.count(o)} {escape(o)}" for o in dict.fromkeys(seen))
    engine_name = next((v.engine for v in run.verdicts if v.engine), "")
    rows = "".join(row(v, o, run.cause_of(v)) for v, o in zip(run.verdicts, seen, strict=True))
    title = f"optchat-spec corpus: {run.engine}"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p><span class="verdict {state(run.tally().code())}"><bdi>'
        f"{escape(run.summary())}</bdi></span></p>"
        f"<p>engine <code>{escape(run.engine)}</code>"
        + (f" (it calls itself <code>{escape(engine_name)}</code>)" if engine_name else "")
        + (f"; {escape(run.agreement)}" if run.agreement else "")
        + f"; runner {escape(__version__)}, corpus version "
        f"{escape(run.corpus_version)}; {len(run.verdicts)} scenarios: {counts}; "
        f"{run.seconds:.1f} s.</p>"
        + (
            f'<p class="FAULT">ENGINE FAULT (not a divergence): {escape(stopped)}. '
            "Nothing was compared; the rows below are the scenarios tried.</p>"
            if stopped is not None
            else ""
        )
        + f"<p>{escape(run.coverage().summary())}</p>{causes_table(run)}"
        "<table><tr><th>scenario</th><th>outcome</th><th>cause</th><th>first divergence</th>"
        "<th>events compared</th><th>events delivered</th><th></th></tr>"
        f"{rows}</table></body></html>\n"
    )


def write_index(run: Run, folder: Path, stopped: str | None = None) -> Path:
    """Write `index.html` in the report folder (`stopped`: index's)."""
    return write_whole(folder / "index.html", index(run, stopped))
