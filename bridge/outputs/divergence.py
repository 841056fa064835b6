"""A divergence as a section of the page: where and in which field, both
sides' views there with the differing lines marked, the two renders' diff,
and the events up to it (or the shrunk scenario's)."""

from __future__ import annotations

import difflib
from typing import Any

from bridge.checking.against import Comparison
from bridge.checking.compare import show, split_lines
from bridge.outputs.markup import escape
from bridge.outputs.trace import said
from model.constants import PLACEHOLDER
from scenarios.format import Scenario

EVENTS_SHOWN = 30
"""Without a shrunk scenario, how many events up to a divergence are listed."""


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


def side(state: dict[str, Any], other: dict[str, Any], which: str) -> list[list[Any]]:
    """One side's view (`view` or `cview`) at the divergence as the page
    draws it: `[level, index, built, differs]` per line, differing when the
    other side's view lacks the line. Whether a line is built is only what
    that side said: its render's placeholders for the chat view; nothing
    (None, drawn neutral) for the compaction view, or when the render does
    not hold one row per line."""
    view = well_formed(state.get(which))
    theirs = set(well_formed(other.get(which)))
    said = built_lines(state.get("render"), len(view)) if which == "view" else None
    built: list[bool | None] = list(said) if said is not None else [None] * len(view)
    return [[*line, b, line not in theirs] for line, b in zip(view, built, strict=True)]


COMPACTION_FIELDS = ("cmerges", "cview_digest", "cview", "contexts_crc", "contexts")
"""The answer fields about the compaction view (SPEC 3.4)."""


def compaction_shown(name: str, expected: dict[str, Any], found: dict[str, Any]) -> bool:
    """Whether a divergence page draws both compaction views: when they
    differ, or the diverging field is about them."""
    return name in COMPACTION_FIELDS or expected.get("cview") != found.get("cview")


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
        f"<p>At {escape(found.where())}: field <code>{escape(found.field)}</code> differs, "
        f"{escape(found.difference(240))}.</p>",
        f"<p>{escape(names[0])}: <code>{escape(show(found.expected))}</code><br>"
        f"{escape(names[1])}: <code>{escape(show(found.found))}</code></p>",
    ]
    data = None
    if found.states is None:
        parts.append("<p>The engine's whole state there could not be had (it failed again).</p>")
    else:
        expected, engine_state = found.states
        views: dict[str, Any] = {}
        for view, words in (("view", "the chat view"), ("cview", "the compaction view")):
            if view == "cview" and not compaction_shown(found.field, expected, engine_state):
                continue
            prefix = "" if view == "view" else "c"
            for which, who, state, other in (
                ("expected", names[0], expected, engine_state),
                ("found", names[1], engine_state, expected),
            ):
                lines = side(state, other, view)
                views[prefix + which] = lines
                differ = sum(1 for line in lines if line[3])
                parts.append(
                    f"<h3>{escape(who)}: {words}, {len(lines)} lines, {differ} not in the other "
                    "(red below it)</h3>"
                    f'<svg id="{prefix}{which}-bar" class="bar"></svg>'
                )
        data = {"T": messages, **views}
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
