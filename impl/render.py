"""Rendering lines as the view's text (SPEC 3)."""

from __future__ import annotations

from impl.text import flatten
from impl.tree import Node, name


def row(node: Node, text: str) -> str:
    """One rendered line: `{start}+{count}|{text}` with newlines flattened (SPEC 3)."""
    return f"{name(node)}|{flatten(text)}\n"


def render_rows(rows: list[str]) -> str:
    """`<chat>`, the rows, `</chat>` (SPEC 3). One join: a view is often over
    a hundred kilobytes, and a second copy of it costs more than the join."""
    return "".join(["<chat>\n", *rows, "</chat>"])


def render_lines(lines: list[tuple[Node, str]]) -> str:
    """`<chat>`, one `{start}+{count}|{text}` per line with newlines
    flattened, `</chat>` (SPEC 3)."""
    return render_rows([row(node, text) for node, text in lines])
