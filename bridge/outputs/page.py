"""A scenario, and a divergence, as one HTML page (`python -m bridge show`).

One self-contained HTML page, made from a scenario replayed through the
model (and an engine, when given): the sawtooth of both views over the
events (SPEC 3.3, 3.4), the views at an event as tiling bars over the
messages with the running and queued calls (SPEC 3, 4), and, at a
divergence, both sides' views there, the differing lines marked, the two
renders' diff and the shrunk scenario's events. The page loads nothing: its
pictures are inline SVG, a Content-Security-Policy forbids any fetch and any
script but its own (by its hash), and a small inline script moves through
the events, whose views are computed here at every batch and at a few
hundred more events. Every value from the scenario, the profile or an
engine reaches the page escaped for where it goes (bridge/outputs/markup.py).

A bar is as wide as the messages each line covers (linear); a log scale by
age, where the recent fine lines are as readable as the old coarse ones, is
one click away.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from bridge.checking.against import Comparison
from bridge.checking.compare import Divergence
from bridge.checking.coverage import Coverage
from bridge.formats.profile import SPEC, agreement
from bridge.outputs.divergence import divergence_section
from bridge.outputs.markup import escape, script_json
from bridge.outputs.sawtooth import sawtooth
from bridge.outputs.trace import Replay, replay
from bridge.outputs.writing import write_whole
from model.profile import Profile
from scenarios.format import Scenario

PALETTE = (
    "#fde725", "#cce126", "#99d73d", "#69cb5b", "#41bd72", "#27ac81", "#219a89",
    "#24878d", "#2c748e", "#34618d", "#3d4c89", "#44357f", "#471c6d", "#440154",
)  # fmt: skip
"""A line's colour by level, leaves light and coarse lines dark (viridis);
levels past the last share its colour."""

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1040px;color:#222;
padding:0 12px}
h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:14px;margin:14px 0 4px}
svg{max-width:100%;height:auto}svg.bar{width:100%;display:block}
.bar text{font:11px sans-serif;text-anchor:middle;pointer-events:none}.bar .on-dark{fill:#fff}
.line{stroke:#fff;stroke-width:.5}.line.unbuilt{stroke:#777}.line.thin{stroke:none}
.differs-mark{fill:#c00}
.running{fill:#222}.queued{fill:#fff;stroke:#222;stroke-width:1}
.controls{display:flex;gap:8px;align-items:center}#slider{flex:1}
.legend span{display:inline-block;width:14px;height:12px;vertical-align:-2px;margin:0 3px 0 10px}
.hatch{background:repeating-linear-gradient(45deg,#fff 0 2px,#666 2px 3px)}
.diff{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
.diff .add{color:#070}.diff .del{color:#b00}.diff .hunk{color:#777}
.events{border-collapse:collapse;font-size:12px}
.events td,.events th{padding:1px 8px;text-align:left}
code{font-size:12px;word-break:break-all}
.command,.stderr{background:#f7f7f7;padding:8px;white-space:pre-wrap;word-break:break-all}
"""

SCRIPT = """
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg", W = 1000, BAR = 44, LANE = 7, UNSAID = "#c8c8c8";
const $ = (id) => document.getElementById(id);
function add(parent, tag, attrs, words) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (words !== undefined) node.textContent = words;
  return parent.appendChild(node);
}
const name = (l, i) => `${i * 2 ** l}+${2 ** l}`;
function decode(code) {
  let first = 0;
  return Array.from(code, (ch) => {
    const l = ch.toLowerCase().charCodeAt(0) - 97;
    const line = [l, first / 2 ** l, ch >= "a", false];
    first += 2 ** l;
    return line;
  });
}
function scale(T) {
  if (T <= 0) return () => 0;
  if ($("log").checked) return (m) => W * (1 - Math.log1p(T - m) / Math.log1p(T));
  return (m) => (W * m) / T;
}
function draw(svg, lines, T, calls) {
  svg.replaceChildren();
  const x = scale(T), top = D.palette.length - 1;
  for (const [l, i, built, differs] of lines) {
    const a = x(i * 2 ** l), b = x((i + 1) * 2 ** l);
    const kind = ["line", b - a < 3 && "thin", built === false && "unbuilt",
      built === null && "unsaid", differs && "differs"];
    const fill = built === null ? UNSAID : built ? D.palette[Math.min(l, top)] : "url(#hatch)";
    const width = Math.max(b - a, 0.3);
    const seg = add(svg, "rect", {class: kind.filter(Boolean).join(" "), x: a, y: 0, width,
      height: BAR, fill});
    const state = {true: "", false: ", not built yet", null: ", built or not: not said"}[built];
    const notes = state + (differs ? ", not in the other view" : "");
    add(seg, "title", {}, `${name(l, i)}: level ${l}${notes}`);
    const under = {class: "differs-mark", x: a, y: BAR + 1, width: Math.max(b - a, 2), height: 5};
    if (differs) add(svg, "rect", under);
    const shade = l > top / 2 && built !== null ? "on-dark" : "";
    if (b - a > 46) add(svg, "text", {x: (a + b) / 2, y: BAR / 2 + 4, class: shade}, name(l, i));
  }
  for (const [row, kind, nodes] of calls) {
    for (const [l, i] of nodes) {
      const a = x(i * 2 ** l), b = x((i + 1) * 2 ** l), w = Math.max(b - a, 4);
      const y = BAR + 7 + row * (LANE + 2);
      const mark = add(svg, "rect", {class: kind, x: (a + b - w) / 2, y, width: w, height: LANE});
      add(mark, "title", {}, `${kind}: ${name(l, i)}`);
    }
  }
  svg.setAttribute("viewBox", `0 0 ${W} ${BAR + 7 + calls.length * (LANE + 2)}`);
}
const slider = $("slider"), saw = $("sawtooth");
const left = +saw.dataset.left, right = +saw.dataset.right, count = +saw.dataset.count;
const cursor = add(saw, "line", {y1: saw.dataset.top, y2: saw.dataset.bottom, stroke: "#000"});
const xOf = (k) => left + ((right - left) * k) / Math.max(count - 1, 1);
function show(n) {
  const s = D.stops[n];
  slider.value = n;
  $("said").textContent = s.s;
  draw($("chat-bar"), decode(s.v), s.T, [[0, "running", s.r], [1, "queued", s.q]]);
  draw($("cview-bar"), decode(s.c), s.T, []);
  cursor.setAttribute("x1", xOf(s.k));
  cursor.setAttribute("x2", xOf(s.k));
}
function drawDivergence() {
  const d = D.divergence;
  if (!d) return;
  for (const which of ["expected", "found", "cexpected", "cfound"]) {
    if (d[which]) draw($(`${which}-bar`), d[which], d.T, []);
  }
}
function nearest(k) {
  let best = 0;
  D.stops.forEach((s, n) => { if (Math.abs(s.k - k) < Math.abs(D.stops[best].k - k)) best = n; });
  return best;
}
if (D.stops.length) {
  slider.max = D.stops.length - 1;
  slider.addEventListener("input", () => show(+slider.value));
  $("prev").addEventListener("click", () => show(Math.max(+slider.value - 1, 0)));
  $("next").addEventListener("click", () => show(Math.min(+slider.value + 1, D.stops.length - 1)));
  $("log").addEventListener("change", () => { show(+slider.value); drawDivergence(); });
  saw.addEventListener("click", (e) => {
    const box = saw.getBoundingClientRect();
    const vx = ((e.clientX - box.left) * saw.viewBox.baseVal.width) / box.width;
    show(nearest(((vx - left) / (right - left)) * (count - 1)));
  });
  show(D.start);
}
drawDivergence();
"""

HATCH = (
    '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
    '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
    '<line x1="1" y1="0" x2="1" y2="6" stroke="#666" stroke-width="1.5"/></pattern>'
    "</defs></svg>"
)

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; "
    f"script-src '{SCRIPT_HASH}'; base-uri 'none'; form-action 'none'"
)
"""The page may load nothing (no fetch, font, image or script from anywhere)
and run no script but SCRIPT, named by its hash: not an inline handler, not a
script element a scenario's text might smuggle in."""


def facts(
    scenario: Scenario, profile: Profile, trace: Replay, comparison: Comparison | None
) -> str:
    """The scenario in one paragraph: where it is from, its size, its
    constants, and the profile the model runs under."""
    c = scenario.constants
    under = comparison.under if comparison is not None else ""
    under = under or f"as the engine {agreement(profile)}"
    batches = sum(p.batch for p in trace.points)
    cbatches = sum(p.cbatch for p in trace.points)
    return (
        f"<p>{escape(scenario.generator)}, seed {escape(scenario.seed)}: "
        f"{len(scenario.events):,} events, "
        f"{trace.messages:,} messages; {batches:,} chat view batches and {cbatches:,} compaction "
        f"view batches that merged. CEILING {c['ceiling']:,} / FLOOR {c['floor']:,}, CCEILING "
        f"{c['cceiling']:,} / CFLOOR {c['cfloor']:,}, NODE {c['node']}, JOBS {c['jobs']}, AHEAD "
        f"{c['ahead']}. The model runs {escape(under)}.</p>"
    )


def legend(trace: Replay) -> str:
    """What the bars' colours and marks mean."""
    top = max(
        (ord(ch.lower()) - ord("a") for s in trace.stops for ch in s["v"] + s["c"]), default=0
    )
    levels = "".join(
        f'<span style="background:{PALETTE[min(level, len(PALETTE) - 1)]}"></span>{level}'
        for level in range(top + 1)
    )
    return (
        f'<p class="legend">level:{levels}<span class="hatch"></span>not built yet'
        '<span style="background:#c8c8c8"></span>built or not: the engine does not say'
        '<span style="background:#222;height:7px"></span>running call'
        '<span style="border:1px solid #222;height:6px"></span>queued call (candidate)</p>'
    )


def opened(trace: Replay, at: int | None) -> int:
    """Which stop shows event `at`: the last one when None or none does."""
    return next((n for n, s in enumerate(trace.stops) if s["at"] == at), len(trace.stops) - 1)


def said_first(trace: Replay, start: int) -> str:
    """What the line over the views says as written, before the page's script
    moves it: the event the views open at (so the page says it without script)."""
    return escape(trace.stops[start]["s"]) if trace.stops else "the scenario has no events."


def reproduction(command: str, stderr: str) -> str:
    """The command that repeats the check, and the end of the engine's stderr."""
    parts = []
    if command:
        parts.append(f'<h2>Reproduce it</h2><pre class="command">{escape(command)}</pre>')
    if stderr:
        parts.append(
            f'<h2>The end of the engine\'s stderr</h2><pre class="stderr">{escape(stderr)}</pre>'
        )
    return "".join(parts)


def page(
    title: str,
    scenario: Scenario,
    profile: Profile,
    trace: Replay,
    chosen: int | None,
    comparison: Comparison | None,
    command: str = "",
    stderr: str = "",
) -> str:
    """The whole report as one HTML document, its views opened at event
    `chosen` (the divergence, or the last event, when None)."""
    found = comparison.divergence if comparison else None
    where = found.position if found else None
    start = opened(trace, where if chosen is None else chosen)
    section, views, mark = "", None, None
    if comparison is not None and found is not None:
        there: dict[str, Any] = trace.stops[opened(trace, where)] if trace.stops else {"T": 0}
        mark = there.get("k")
        section, views = divergence_section(comparison, scenario, there["T"])
    data = {"palette": PALETTE, "stops": trace.stops, "start": start, "divergence": views}
    body = [
        HATCH,
        f"<h1>{escape(title)}</h1>",
        facts(scenario, profile, trace, comparison),
    ]
    if comparison is not None:
        body.append(f"<p><b>{escape(comparison.verdict)}</b></p>")
    body += [
        "<h2>The sawtooth (SPEC 3.3, 3.4)</h2>",
        sawtooth(trace.points, scenario.constants, f"{title}: both views' sizes in bytes", mark),
        "<p>Click the picture, or move the slider, to see the views at an event.</p>",
        "<h2>The views at an event (SPEC 3, 4)</h2>",
        '<div class="controls"><button id="prev">&#9664;</button>'
        '<input type="range" id="slider" min="0" max="0" value="0">'
        '<button id="next">&#9654;</button>'
        '<label><input type="checkbox" id="log"> log scale by age</label></div>',
        f'<p id="said">{said_first(trace, start)}</p>',
        '<h3>chat view</h3><svg id="chat-bar" class="bar"></svg>',
        '<h3>compaction view</h3><svg id="cview-bar" class="bar"></svg>',
        legend(trace),
        section,
        reproduction(command, stderr),
        f'<script type="application/json" id="data">{script_json(data)}</script>',
        f"<script>{SCRIPT}</script>",
    ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


# Writing it.


class NoSuchEvent(ValueError):
    """An event asked for that the replay does not have."""


def write_report(
    path: Path,
    scenario: Scenario,
    profile: Profile = SPEC,
    at: int | None = None,
    comparison: Comparison | None = None,
    command: str = "",
    stderr: str = "",
) -> Path:
    """Write the report of a scenario, opened at event `at` (the divergence,
    or the last event, when None), with the `command` that repeats it and the
    end of the engine's `stderr`; NoSuchEvent when `at` names no event sent."""
    wanted = {at} if at is not None else set()
    found = comparison.divergence if comparison else None
    if found is not None and found.position is not None:
        wanted.add(found.position)
    trace = replay(scenario, profile, wanted)
    if at is not None and at not in {p.at for p in trace.points}:
        raise NoSuchEvent(f"--at {at}: {no_event(scenario, at)}")
    title = Path(scenario.source).name
    return write_whole(path, page(title, scenario, profile, trace, at, comparison, command, stderr))


def no_event(scenario: Scenario, at: int) -> str:
    """Why the replay has no event `at`."""
    count = len(scenario.events)
    if not 0 <= at < count:
        return f"the scenario has {count} events" + (f", 0 to {count - 1}" if count else "")
    return f"event {at} is not sent under calls: self (SPEC 10): a start, or an outcome never due"


def write_divergence_report(
    path: Path,
    scenario: Scenario,
    divergence: Divergence,
    names: tuple[str, str],
    profile: Profile = SPEC,
    shrunk: Scenario | None = None,
    *,
    command: str = "",
    stderr: str = "",
    coverage: Coverage | None = None,
    under: str = "",
) -> Path:
    """Write the report of a divergence found on `scenario` (with both whole
    states there, from `bridge.checking.compare.add_states`), listing `shrunk`'s
    events when the scenario was shrunk, and what the replay compared: what
    `compare`, `fuzz` and `corpus --report` write beside the shrunk scenario
    (the model's profile given `under`, when not by the engine)."""
    verdict = f"DIVERGENCE between {names[0]} and {names[1]}: {divergence.summary()}"
    if coverage is not None:
        verdict += f"; {coverage.summary()}"
    comparison = Comparison(names, verdict, divergence, shrunk, under)
    return write_report(path, scenario, profile, None, comparison, command, stderr)
