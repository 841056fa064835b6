"""Rendering lines as the view's text (SPEC 3)."""

from __future__ import annotations

from impl.textscan import flatten
from impl.tree import Node, name


def row(node: Node, text: str) -> str:
    """One rendered line: `{start}+{count}|{text}` with newlines flattened (SPEC 3)."""
    return f"{name(node)}|{flatten(text)}\n"


EMPTY = {"tags": "<chat>\n</chat>", "blank_line": "<chat>\n\n</chat>"}
"""What no row at all renders as, by the profile's `empty_chat` (SPEC 3, 10)."""


def render_rows(rows: list[str], empty: str) -> str:
    """`<chat>`, the rows, `</chat>`; no row renders as `empty` (SPEC 3, 10).
    One join: a view is often over a hundred kilobytes, and a second copy of
    it costs more than the join."""
    if not rows:
        return empty
    return "".join(["<chat>\n", *rows, "</chat>"])


def render_lines(lines: list[tuple[Node, str]], empty: str) -> str:
    """`<chat>`, one `{start}+{count}|{text}` per line with newlines
    flattened, `</chat>`; no line renders as `empty` (SPEC 3, 10)."""
    return render_rows([row(node, text) for node, text in lines], empty)
