"""Drawing primitives for the bridge's pictures (bridge/outputs/): SVG
elements written as text, numbers kept short, a linear scale, round tick
values, and a curve thinned to what a pixel can show."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import groupby

from bridge.outputs.markup import escape


def num(value: float) -> str:
    """A coordinate with at most one decimal: `12`, `12.5`."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def element(tag: str, content: str = "", /, **attributes: object) -> str:
    """`<tag a="v">content</tag>`, or `<tag a="v"/>` without content.
    `class_` is written `class`, other underscores as dashes; None is left out."""
    shown = []
    for name, value in attributes.items():
        if value is None:
            continue
        name = "class" if name == "class_" else name.replace("_", "-")
        text = num(value) if isinstance(value, float) else str(value)
        shown.append(f' {name}="{escape(text)}"')
    head = f"<{tag}{''.join(shown)}"
    return f"{head}>{content}</{tag}>" if content else f"{head}/>"


def line(x1: float, y1: float, x2: float, y2: float, **attributes: object) -> str:
    """A `<line>` from (x1, y1) to (x2, y2)."""
    return element("line", x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **attributes)


def text(content: str, **attributes: object) -> str:
    """A `<text>` element holding `content`, escaped."""
    return element("text", escape(content), **attributes)


def points(pairs: list[tuple[float, float]]) -> str:
    """Pairs as a `points` attribute: `x,y x,y ...`."""
    return " ".join(f"{num(x)},{num(y)}" for x, y in pairs)


@dataclass(frozen=True)
class Linear:
    """Maps `low .. high` onto `start .. end` (either may run backwards)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.high - self.low
        share = (value - self.low) / span if span else 0.0
        return self.start + share * (self.end - self.start)


def ticks(high: float, most: int = 6) -> list[int]:
    """Round values from 0 to at most `high`, 1, 2 or 5 times a power of ten
    apart, at most `most` of them."""
    if high <= 0:
        return [0]
    step = 1
    power = 10 ** max(0, math.floor(math.log10(high / most)))
    for factor in (1, 2, 5, 10):
        step = factor * power
        if high / step < most:
            break
    return list(range(0, int(high) + 1, step))


def envelope(pairs: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points of a curve that a picture can tell apart: for each run of
    points on the same whole x, the first, the lowest, the highest and the
    last, in their order. The drawn curve looks the same, with a few points
    per pixel column instead of one per event."""
    out: list[tuple[float, float]] = []
    for _, group in groupby(pairs, key=lambda pair: math.floor(pair[0])):
        run = list(group)
        lowest = min(range(len(run)), key=lambda k: run[k][1])
        highest = max(range(len(run)), key=lambda k: run[k][1])
        out += [run[k] for k in sorted({0, lowest, highest, len(run) - 1})]
    return out
