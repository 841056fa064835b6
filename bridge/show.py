"""A scenario, and a divergence, as pictures (`python -m bridge show`).

One self-contained HTML page, made from a scenario replayed through the
model (and an engine, when given): the sawtooth of both views over the
events (SPEC 3.3, 3.4), the views at an event as tiling bars over the
messages with the running and queued calls (SPEC 3, 4), and, at a
divergence, both sides' views there, the differing lines marked, the two
renders' diff and the shrunk scenario's events. The page loads nothing: its
pictures are inline SVG, a Content-Security-Policy forbids any fetch, and a
small inline script moves through the events, whose views are computed here
at every batch and at a few hundred more events.

A bar is as wide as the messages each line covers (linear); a log scale by
age, where the recent fine lines are as readable as the old coarse ones, is
one click away.
"""

from __future__ import annotations

import argparse
import difflib
import json
import string
import sys
from collections.abc import Collection
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from bridge import svg
from bridge.compare import Divergence, add_states, show, split_lines
from bridge.compare import run as compare_answers
from bridge.corpus import profile_of
from bridge.engines import ModelEngine, engine
from bridge.observe import PROTOCOL_1, pairs
from bridge.profile import SPEC, ProfileError, agreement
from bridge.stream import from_model, wire
from model import bits, machine
from model.constants import PLACEHOLDER
from model.machine import State
from model.profile import Profile
from model.view import View
from scenarios.format import Scenario, ScenarioError, read, uses_version_2

SAMPLES = 200
"""How many evenly spaced events have their views in the page, beside every batch."""

EVENTS_SHOWN = 30
"""Without a shrunk scenario, how many events up to a divergence are listed."""

PALETTE = (
    "#fde725", "#cce126", "#99d73d", "#69cb5b", "#41bd72", "#27ac81", "#219a89",
    "#24878d", "#2c748e", "#34618d", "#3d4c89", "#44357f", "#471c6d", "#440154",
)  # fmt: skip
"""A line's colour by level, leaves light and coarse lines dark (viridis);
levels past the last share its colour."""

CHAT = "#1f77b4"
COMPACTION = "#d95f02"


def name(level: int, index: int) -> str:
    """A node's name `start+count` (SPEC 2)."""
    return f"{index << level}+{1 << level}"


def said(event: dict[str, Any], refused: str | None = None) -> str:
    """An event in a few words, and the rule the model refused it by."""
    kind = event["event"]
    words = kind
    if kind == "message":
        size = event.get("size", len(event.get("text", "").encode("utf-8", "surrogatepass")))
        words = f"message {event['kind']} ({size:,} bytes)"
    elif "node" in event:
        words = f"{kind} {name(*event['node'])}"
        if "replies" in event:
            words += f" ({len(event['replies'])} replies)"
    elif kind == "zoom":
        words = f"zoom {event['id']} n={event['n']}"
    return f"{words}, refused: {refused}" if refused else words


# The replay.


@dataclass(frozen=True)
class Point:
    """The sawtooth after one event sent (SPEC 3.3, 3.4): both views' sizes,
    whether the chat view is shrinking, and whether each view's batch merged."""

    at: int
    size: int
    csize: int
    shrinking: bool
    batch: bool
    cbatch: bool


@dataclass(frozen=True)
class Replay:
    """A scenario replayed through the model: the sawtooth at every event
    sent, and the whole views at the chosen ones (`stops`, as the page's
    script reads them)."""

    points: list[Point]
    stops: list[dict[str, Any]]
    messages: int


def sent(scenario: Scenario, profile: Profile) -> list[dict[str, Any]]:
    """The event lines the bridge sends, in its order: the scenario's, but
    under `calls: self` without starts and with held outcomes later
    (bridge/stream.py, SPEC 10)."""
    if not profile.self_calls:
        return [wire(event, at) for at, event in enumerate(scenario.events)]
    exchanges = from_model(scenario, profile, strict=False)
    return [exchange.line for exchange in exchanges if exchange.position is not None]


def code(state: State, view: View) -> str:
    """A view as one letter per line, oldest first: its level as `a`, `b`,
    ... when built, `A`, `B`, ... while not (SPEC 3); the lines tile the
    chat, so their levels say where each one lies. (Levels stop at `z`:
    a chat of 2^26 messages.)"""
    letters = (string.ascii_uppercase, string.ascii_lowercase)
    return "".join(letters[machine.text(state, n) is not None][n.level] for n in view)


def stop(k: int, line: dict[str, Any], answer: dict[str, Any], state: State) -> dict[str, Any]:
    """Everything the page shows of the state after the `k`-th line sent."""
    return {
        "k": k,
        "at": line["at"],
        "e": said(line, answer.get("refused")),
        "T": bits.to_int(state.count),
        "size": machine.size(state),
        "csize": state.compaction.size,
        "shrinking": machine.shrinking(state),
        "m": len(machine.merges(state)),
        "cm": len(machine.compaction_merges(state)),
        "v": code(state, machine.view(state)),
        "c": code(state, machine.compaction_view(state)),
        "r": pairs(state.queue.running),
        "q": pairs(machine.candidates(state)),
    }


def replay(scenario: Scenario, profile: Profile, wanted: Collection[int] = ()) -> Replay:
    """Replay the scenario through the model under `profile`, keeping the
    views at every batch, at SAMPLES events evenly spaced, at the last one
    and at the events `wanted` (positions in the file)."""
    lines = sent(scenario, profile)
    last = len(lines) - 1
    samples = {round(j * last / SAMPLES) for j in range(SAMPLES + 1)} if lines else set()
    model = ModelEngine(profile)
    model.start(scenario)
    points: list[Point] = []
    stops: list[dict[str, Any]] = []
    for k, line in enumerate(lines):
        answer = model.answer(line)
        state = model.state
        point = Point(
            line["at"],
            machine.size(state),
            state.compaction.size,
            machine.shrinking(state),
            bool(machine.merges(state)),
            bool(machine.compaction_merges(state)),
        )
        points.append(point)
        if point.batch or point.cbatch or k in samples or line["at"] in wanted:
            stops.append(stop(k, line, answer, state))
    return Replay(points, stops, bits.to_int(model.state.count))


# The sawtooth picture.

WIDTH, HEIGHT = 1000, 330
LEFT, RIGHT, TOP, BOTTOM = 70, 880, 52, 250
RAILS = (262, 280)
"""Where the chat view's and the compaction view's batch marks are drawn."""
AXIS = 310
"""Where the event numbers are written."""
SHRINKING = "#f3c9c9"

STYLE = (
    "text{font:12px sans-serif;fill:#333}.title{font-weight:bold}.size{fill:none;stroke-width:1.3}"
    f".chat{{stroke:{CHAT}}}.cview{{stroke:{COMPACTION}}}"
    ".budget{stroke-width:1;stroke-dasharray:6 3}.floor{stroke-dasharray:2 3}"
    f".shrinking{{fill:{SHRINKING}}}"
    ".grid{stroke:#e4e4e4}.axis{stroke:#999}"
    ".batch,.cbatch{stroke-width:1}.divergence{stroke:#c00;stroke-width:2}"
)


def stretches(flags: list[bool]) -> list[tuple[int, int]]:
    """The runs of consecutive true flags, as (first, last) positions."""
    out: list[tuple[int, int]] = []
    for k, flag in enumerate(flags):
        if flag and out and out[-1][1] == k - 1:
            out[-1] = (out[-1][0], k)
        elif flag:
            out.append((k, k))
    return out


def key(entries: list[tuple[str, str, str]]) -> str:
    """The picture's key, in a row under its title: (words, colour, `line` or `box`)."""
    out = []
    at = LEFT
    for words, colour, shape in entries:
        if shape == "line":
            out.append(svg.line(at, 32, at + 18, 32, stroke=colour, stroke_width=2))
        else:
            out.append(svg.element("rect", fill=colour, x=at, y=26, width=18, height=12))
        out.append(svg.text(words, x=at + 24, y=36))
        at += 40 + 7 * len(words)
    return "".join(out)


def sawtooth(
    points: list[Point], constants: dict[str, Any], title: str, mark: int | None = None
) -> str:
    """Both views' sizes over the events as an SVG picture (SPEC 3.3, 3.4):
    CEILING/FLOOR and CCEILING/CFLOOR drawn, the stretches where the chat
    view is shrinking shaded, one mark per batch that merged on a rail of
    its view, and the event `mark` (a divergence) drawn across."""
    count = len(points)
    x = svg.Linear(0, max(count - 1, 1), LEFT, RIGHT)
    budgets = [
        ("CEILING", constants["ceiling"], CHAT, "budget"),
        ("FLOOR", constants["floor"], CHAT, "budget floor"),
        ("CCEILING", constants["cceiling"], COMPACTION, "budget"),
        ("CFLOOR", constants["cfloor"], COMPACTION, "budget floor"),
    ]
    high = max([max(p.size, p.csize) for p in points] + [b[1] for b in budgets] + [1]) * 1.08
    y = svg.Linear(0, high, BOTTOM, TOP)
    out = [svg.element("style", STYLE), svg.element("title", escape(title))]
    out.append(svg.text(title, x=LEFT, y=15, class_="title"))
    for value in svg.ticks(high):
        out.append(svg.line(LEFT, y(value), RIGHT, y(value), class_="grid"))
        out.append(svg.text(f"{value:,}", x=LEFT - 6, y=y(value) + 4, text_anchor="end"))
    for first, last in stretches([p.shrinking for p in points]):
        width = max(x(last) - x(first), 1.0)
        out.append(
            svg.element(
                "rect", class_="shrinking", x=x(first), y=TOP, width=width, height=BOTTOM - TOP
            )
        )
    below = 0.0
    for label, value, colour, style in sorted(budgets, key=lambda b: -b[1]):
        out.append(svg.line(LEFT, y(value), RIGHT, y(value), class_=style, stroke=colour))
        below = max(y(value) + 4, below + 13)
        out.append(svg.text(f"{label} {value:,}", x=RIGHT + 6, y=below, fill=colour))
    for field, style in (("csize", "cview"), ("size", "chat")):
        curve = svg.envelope([(x(k), y(getattr(p, field))) for k, p in enumerate(points)])
        out.append(svg.element("polyline", class_=f"size {style}", points=svg.points(curve)))
    for rail, style, colour in ((RAILS[0], "batch", CHAT), (RAILS[1], "cbatch", COMPACTION)):
        out.append(svg.text(f"{style}es", x=LEFT - 6, y=rail + 10, text_anchor="end", fill=colour))
        out += [
            svg.line(x(k), rail, x(k), rail + 12, class_=style, stroke=colour)
            for k, p in enumerate(points)
            if getattr(p, style)
        ]
    out.append(svg.line(LEFT, BOTTOM, RIGHT, BOTTOM, class_="axis"))
    for value in svg.ticks(max(count - 1, 0), 8):
        out.append(svg.text(f"{value:,}", x=x(value), y=AXIS, text_anchor="middle"))
    out.append(svg.text("events", x=RIGHT + 6, y=AXIS))
    if mark is not None:
        out.append(svg.line(x(mark), TOP, x(mark), AXIS - 18, class_="divergence"))
    out.append(
        key(
            [
                ("chat view size", CHAT, "line"),
                ("compaction view size", COMPACTION, "line"),
                ("chat view shrinking", SHRINKING, "box"),
            ]
        )
    )
    return svg.element(
        "svg",
        "".join(out),
        xmlns="http://www.w3.org/2000/svg",
        id="sawtooth",
        viewBox=f"0 0 {WIDTH} {HEIGHT}",
        width=WIDTH,
        height=HEIGHT,
        role="img",
        data_left=LEFT,
        data_right=RIGHT,
        data_count=count,
        data_top=TOP,
        data_bottom=AXIS - 18,
    )


# The divergence.


@dataclass(frozen=True)
class Comparison:
    """An engine checked against the model on the scenario: both sides'
    names, one line saying how it went, and the divergence, if any, with
    the scenario shrunk from it (bridge/compare.py)."""

    names: tuple[str, str]
    verdict: str
    divergence: Divergence | None = None
    shrunk: Scenario | None = None


def well_formed(value: Any) -> list[tuple[int, int]]:
    """A side's view as `(level, index)` pairs, leaving out what is not one:
    an engine's answer is shown, never trusted."""
    if not isinstance(value, list):
        return []
    return [
        (item[0], item[1])
        for item in value
        if isinstance(item, list)
        and len(item) == 2
        and all(type(n) is int and 0 <= n for n in item)
        and item[0] < 64
    ]


def built_lines(render: Any, count: int) -> list[bool] | None:
    """Which lines of a render are built (no placeholder, SPEC 3), or None
    when the render has not `count` lines to tell."""
    if not isinstance(render, str):
        return None
    rows = split_lines(render)[1:-1]
    if len(rows) != count:
        return None
    return [row.partition("|")[2] != PLACEHOLDER for row in rows]


def side(state: dict[str, Any], other: dict[str, Any]) -> list[list[Any]]:
    """One side's view at the divergence as the page draws it: `[level,
    index, built, differs]` per line, built as its render shows, differing
    when the other side's view lacks the line."""
    view = well_formed(state.get("view"))
    theirs = set(well_formed(other.get("view")))
    built = built_lines(state.get("render"), len(view)) or [True] * len(view)
    return [[*line, b, line not in theirs] for line, b in zip(view, built, strict=True)]


def render_diff(expected: Any, found: Any, names: tuple[str, str]) -> str:
    """The two renders' unified diff as HTML rows, or a line saying why there is none."""
    if not (isinstance(expected, str) and isinstance(found, str)):
        return "<p>a render is missing on one side.</p>"
    rows = difflib.unified_diff(
        split_lines(expected), split_lines(found), names[0], names[1], lineterm="", n=2
    )
    marks = {"+": "add", "-": "del", "@": "hunk"}
    shown = [
        f'<span class="{marks.get(row[:1], "same")}">{escape(repr(row)[1:-1])}</span>'
        for row in rows
    ]
    return (
        f'<pre class="diff">{chr(10).join(shown)}</pre>'
        if shown
        else "<p>the renders are equal.</p>"
    )


def events_table(events: list[dict[str, Any]], first: int) -> str:
    """Events as an HTML table, numbered from `first`."""
    rows = "".join(
        f"<tr><td>{first + k}</td><td>{escape(said(e, e.get('refused')))}</td></tr>"
        for k, e in enumerate(events)
    )
    return f'<table class="events"><tr><th>event</th><th>what</th></tr>{rows}</table>'


def divergence_section(
    comparison: Comparison, scenario: Scenario, messages: int
) -> tuple[str, dict[str, Any] | None]:
    """The divergence as HTML, and the two views there for the page's
    script, drawn over the `messages` the model had logged there."""
    found = comparison.divergence
    assert found is not None
    names = comparison.names
    parts = [
        '<section id="divergence"><h2>The divergence</h2>',
        f"<p>At {escape(found.where())}: field <code>{escape(found.field)}</code> differs.</p>",
        f"<p>{escape(names[0])}: <code>{escape(show(found.expected))}</code><br>"
        f"{escape(names[1])}: <code>{escape(show(found.found))}</code></p>",
    ]
    data = None
    if found.states is None:
        parts.append("<p>The engine's whole state there could not be had (it failed again).</p>")
    else:
        expected, engine_state = found.states
        views = {"expected": side(expected, engine_state), "found": side(engine_state, expected)}
        data = {"T": messages, **views}
        for which, who in (("expected", names[0]), ("found", names[1])):
            lines = len(views[which])
            differ = sum(1 for line in views[which] if line[3])
            parts.append(
                f"<h3>{escape(who)}: the chat view, {lines} lines, {differ} not in the other "
                "(red below it)</h3>"
                f'<svg id="{which}-bar" class="bar"></svg>'
            )
        parts += [
            "<h3>The renders (SPEC 3)</h3>",
            render_diff(expected.get("render"), engine_state.get("render"), names),
        ]
    if comparison.shrunk is not None:
        events = comparison.shrunk.events
        parts += [f"<h3>The shrunk scenario: {len(events)} events</h3>", events_table(events, 0)]
    else:
        end = len(scenario.events) if found.position is None else found.position + 1
        begin = max(0, end - EVENTS_SHOWN)
        parts += [
            f"<h3>Events {begin} to {end - 1}</h3>",
            events_table(scenario.events[begin:end], begin),
        ]
    parts.append("</section>")
    return "".join(parts), data


# The page.

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
"""

SCRIPT = """
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg", W = 1000, BAR = 44, LANE = 7;
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
    const kind = ["line", b - a < 3 && "thin", !built && "unbuilt", differs && "differs"];
    const fill = built ? D.palette[Math.min(l, top)] : "url(#hatch)";
    const width = Math.max(b - a, 0.3);
    const seg = add(svg, "rect", {class: kind.filter(Boolean).join(" "), x: a, y: 0, width,
      height: BAR, fill});
    const notes = (built ? "" : ", not built yet") + (differs ? ", not in the other view" : "");
    add(seg, "title", {}, `${name(l, i)}: level ${l}${notes}`);
    const under = {class: "differs-mark", x: a, y: BAR + 1, width: Math.max(b - a, 2), height: 5};
    if (differs) add(svg, "rect", under);
    const shade = l > top / 2 ? "on-dark" : "";
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
const bytes = (n) => n.toLocaleString("en");
function show(n) {
  const s = D.stops[n];
  slider.value = n;
  const batch = s.m || s.cm ? ` · batch: ${s.m} chat merges, ${s.cm} compaction merges` : "";
  $("said").textContent = `event ${s.at}: ${s.e} · ${bytes(s.T)} messages · chat view ` +
    `${s.v.length} lines, ${bytes(s.size)} bytes${s.shrinking ? ", shrinking" : ""} · compaction ` +
    `view ${s.c.length} lines, ${bytes(s.csize)} bytes · ${s.r.length} running, ` +
    `${s.q.length} queued${batch}`;
  draw($("chat-bar"), decode(s.v), s.T, [[0, "running", s.r], [1, "queued", s.q]]);
  draw($("cview-bar"), decode(s.c), s.T, []);
  cursor.setAttribute("x1", xOf(s.k));
  cursor.setAttribute("x2", xOf(s.k));
}
function drawDivergence() {
  const d = D.divergence;
  if (!d) return;
  draw($("expected-bar"), d.expected, d.T, []);
  draw($("found-bar"), d.found, d.T, []);
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

POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
"""The page may load nothing: no fetch, font, image or script from anywhere."""


def facts(scenario: Scenario, profile: Profile, trace: Replay) -> str:
    """The scenario in one paragraph: where it is from, its size, its constants."""
    c = scenario.constants
    batches = sum(p.batch for p in trace.points)
    cbatches = sum(p.cbatch for p in trace.points)
    return (
        f"<p>{escape(scenario.generator)}, seed {scenario.seed}: {len(scenario.events):,} events, "
        f"{trace.messages:,} messages; {batches:,} chat view batches and {cbatches:,} compaction "
        f"view batches that merged. CEILING {c['ceiling']:,} / FLOOR {c['floor']:,}, CCEILING "
        f"{c['cceiling']:,} / CFLOOR {c['cfloor']:,}, NODE {c['node']}, JOBS {c['jobs']}, AHEAD "
        f"{c['ahead']}. The model {escape(agreement(profile))}.</p>"
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
        '<span style="background:#222;height:7px"></span>running call'
        '<span style="border:1px solid #222;height:6px"></span>queued call (candidate)</p>'
    )


def embedded(data: dict[str, Any]) -> str:
    """Data as JSON that a `<script>` element holds as it is."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def opened(trace: Replay, at: int | None) -> int:
    """Which stop shows event `at`: the last one when None or none does."""
    return next((n for n, s in enumerate(trace.stops) if s["at"] == at), len(trace.stops) - 1)


def page(
    title: str,
    scenario: Scenario,
    profile: Profile,
    trace: Replay,
    chosen: int | None,
    comparison: Comparison | None,
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
        facts(scenario, profile, trace),
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
        '<p id="said">the scenario has no events.</p>',
        '<h3>chat view</h3><svg id="chat-bar" class="bar"></svg>',
        '<h3>compaction view</h3><svg id="cview-bar" class="bar"></svg>',
        legend(trace),
        section,
        f'<script type="application/json" id="data">{embedded(data)}</script>',
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
) -> Path:
    """Write the report of a scenario, opened at event `at` (the divergence,
    or the last event, when None); NoSuchEvent when `at` names no event sent."""
    wanted = {at} if at is not None else set()
    found = comparison.divergence if comparison else None
    if found is not None and found.position is not None:
        wanted.add(found.position)
    trace = replay(scenario, profile, wanted)
    if at is not None and at not in {p.at for p in trace.points}:
        raise NoSuchEvent(f"--at {at}: {no_event(scenario, at)}")
    title = Path(scenario.source).name
    path.write_text(page(title, scenario, profile, trace, at, comparison), encoding="utf-8")
    return path


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
) -> Path:
    """Write the report of a divergence found on `scenario` (with both whole
    states there, from `bridge.compare.add_states`), listing `shrunk`'s
    events when the scenario was shrunk: what `compare`, `fuzz` and `corpus
    --report` write beside the shrunk scenario."""
    verdict = f"DIVERGENCE between {names[0]} and {names[1]}: {divergence.summary()}"
    return write_report(
        path, scenario, profile, None, Comparison(names, verdict, divergence, shrunk)
    )


def write_sawtooth(path: Path, scenario: Scenario, profile: Profile = SPEC) -> Path:
    """Write the sawtooth alone as an SVG file (the picture in README)."""
    title = f"{Path(scenario.source).name}: the sizes of both views in bytes, event by event"
    points = replay(scenario, profile).points
    path.write_text(sawtooth(points, scenario.constants, title) + "\n", encoding="utf-8")
    return path


def against(
    scenario: Scenario, command: str, given: Profile | None, timeout: float
) -> tuple[Profile, Comparison]:
    """An engine replayed on the scenario and compared with the model at every
    answer (bridge/compare.py), with both whole states at a divergence; the
    profile to show the model under is the engine's."""
    subject = engine(command, timeout, given or SPEC)
    names = ("model", subject.name)
    try:
        ready = subject.start(scenario)
        if ready.unsupported:
            return given or SPEC, Comparison(
                names, f"{subject.name} cannot take it: {ready.unsupported}"
            )
        if ready.protocol == 1 and uses_version_2(scenario.events):
            return given or SPEC, Comparison(
                names, f"{subject.name} speaks protocol 1; this needs protocol 2"
            )
        profile = profile_of(ready.profile, given, subject.name)
        fields = PROTOCOL_1 if ready.protocol == 1 else None
        result = compare_answers(
            from_model(scenario, profile, strict=False), subject, ready, fields
        )
    finally:
        subject.close()
    if result.unsupported is not None:
        return profile, Comparison(names, f"{subject.name} does not support {result.unsupported}")
    found = result.divergence
    if found is None:
        verdict = f"{subject.name} agrees at all {result.answers} answers; {agreement(profile)}"
        return profile, Comparison(names, verdict)
    add_states(found, scenario, ModelEngine(profile), engine(command, timeout, given or SPEC))
    verdict = f"DIVERGENCE between {names[0]} and {names[1]}: {found.summary()}"
    return profile, Comparison(names, verdict, found)


def run(args: argparse.Namespace) -> int:
    """The `show` command: 0 when the page (or picture) is written, 2 on bad
    input; an EngineFault is left to bridge/cli.py to report, as for `compare`."""
    from bridge.cli import UsageError, read_profile  # bridge.cli imports this module

    output: Path = args.output
    try:
        if output.suffix not in (".html", ".svg"):
            raise UsageError(f"-o {output}: name an .html file (the report) or .svg (the sawtooth)")
        scenario = read(args.file)
        given = read_profile(args.profile)
        if output.suffix == ".svg":
            write_sawtooth(output, scenario, given or SPEC)
        else:
            profile, comparison = (given or SPEC), None
            if args.engine is not None:
                profile, comparison = against(scenario, args.engine, given, args.timeout)
            write_report(output, scenario, profile, args.at, comparison)
    except (UsageError, ScenarioError, ProfileError, NoSuchEvent, OSError) as error:
        print(f"optchat-spec show: {error}", file=sys.stderr)
        return 2
    print(f"wrote {output}")
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `show` command to the bridge's command line (bridge/cli.py)."""
    command = commands.add_parser("show", help="a scenario, and a divergence, as one HTML page")
    command.add_argument("file", type=Path)
    command.add_argument(
        "--engine", help="model, impl, or a protocol command: show where it diverges"
    )
    command.add_argument(
        "--profile", type=Path, help="the engine's profile (SPEC 10), if it declares none"
    )
    command.add_argument("--timeout", type=float, default=10.0, help="seconds per answer")
    command.add_argument("--at", type=int, metavar="EVENT", help="the event to open the views at")
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="PATH",
        help="the report (.html), or the sawtooth alone (.svg)",
    )
    command.set_defaults(run=run)
