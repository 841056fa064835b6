"""The sawtooth: both views' sizes over the events as an SVG picture (SPEC
3.3, 3.4), inside a page or alone (the picture in README)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.formats.profile import SPEC
from bridge.outputs import svg
from bridge.outputs.markup import escape
from bridge.outputs.trace import Point, replay
from bridge.outputs.writing import write_whole
from model.profile import Profile
from scenarios.format import Scenario

CHAT = "#1f77b4"
COMPACTION = "#d95f02"

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


def write_sawtooth(path: Path, scenario: Scenario, profile: Profile = SPEC) -> Path:
    """Write the sawtooth alone as an SVG file (the picture in README)."""
    title = f"{Path(scenario.source).name}: the sizes of both views in bytes, event by event"
    points = replay(scenario, profile).points
    return write_whole(path, sawtooth(points, scenario.constants, title) + "\n")
