"""Rendering views and contexts, byte for byte (SPEC 3, 3.4, 4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from model import node as nodes
from model import text as texts
from model import tree as trees
from model.constants import PLACEHOLDER
from model.node import Node
from model.profile import Profile
from model.tree import Tree
from model.view import View


def empty_chat(profile: Profile) -> str:
    """What no line at all renders as: `<chat>`, a newline, `</chat>`; under
    `empty_chat: blank_line` a blank line between the tags (SPEC 3, 10)."""
    if profile.empty_chat == "blank_line":
        return "<chat>\n\n</chat>"
    return "<chat>\n</chat>"


def row(node: Node, text: str) -> str:
    """A line as rendered: `{start}+{count}|{text}` with newlines flattened,
    then a newline (SPEC 3)."""
    return f"{nodes.name(node)}|{texts.flatten(text)}\n"


def wrapped(lines: Sequence[str], profile: Profile) -> str:
    """`<chat>`, the rendered lines, `</chat>`, each followed by a newline
    but the last; no line renders as the profile's empty chat (SPEC 3, 10)."""
    if not lines:
        return empty_chat(profile)
    rows = "".join(lines)
    return f"<chat>\n{rows}</chat>"


def render_lines(view: View, line_text: Callable[[Node], str], profile: Profile) -> str:
    """The view's lines, each `row` of its text, `wrapped` (SPEC 3, 10)."""
    return wrapped([row(n, line_text(n)) for n in view], profile)


def shown_text(tree: Tree, node: Node) -> str:
    """A line's text: its node's text, or the placeholder while unbuilt (SPEC 3)."""
    line = trees.text(tree, node)
    return PLACEHOLDER if line is None else line


def render(view: View, tree: Tree, profile: Profile) -> str:
    """The view as a turn reads it (SPEC 3); also renders contexts (SPEC 3.4)."""
    return render_lines(view, lambda n: shown_text(tree, n), profile)


def render_timed_out(view: View, tree: Tree, node_bytes: int, profile: Profile) -> str:
    """The view for a turn whose wait timed out: each unbuilt line shows its
    message line cut to NODE bytes instead of the placeholder (SPEC 4)."""

    def line_text(n: Node) -> str:
        line = trees.text(tree, n)
        return texts.cut(trees.source(tree, n), node_bytes) if line is None else line

    return render_lines(view, line_text, profile)
