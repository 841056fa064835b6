"""Zoom: a turn opening a part of the chat (SPEC 3.5, and its shape under
the profile's zoom options, SPEC 10)."""

from __future__ import annotations

from model import bits
from model import node as nodes
from model import render as renders
from model import text as texts
from model import tree as trees
from model.bits import Bits
from model.errors import Refused
from model.node import Node
from model.profile import Profile
from model.tree import Tree


def zoomed_node(tree: Tree, count: Bits, id: Bits, n: Bits, profile: Profile) -> Node:
    """The node `zoom(id, n)` opens, `(log2 n, id/n)`; Refused (rule `zoom`)
    unless n is a power of two, id a multiple of n, and the node's messages
    are all logged (SPEC 3.5), and under `zoom_unbuilt: refused` unless its
    halves are built (SPEC 10)."""
    said = f"zoom({bits.to_int(id)}, {bits.to_int(n)})"
    if sum(n) != 1:
        raise Refused("zoom", f"{said}: n must be a power of two")
    level = bits.trailing_zeros(n)
    if any(id[:level]):
        raise Refused("zoom", f"{said}: id must be a multiple of n")
    node = Node(level, bits.unshift(id, level))
    if bits.less(count, nodes.end(node)):
        last = bits.to_int(nodes.end(node)) - 1
        raise Refused("zoom", f"{said}: messages up to {last} are not all logged yet")
    if level and profile.zoom_unbuilt == "refused":
        if not all(trees.is_built(tree, half) for half in nodes.halves(node)):
            raise Refused("zoom", f"{said}: a half is not summarized yet")
    return node


def zoom(tree: Tree, count: Bits, id: Bits, n: Bits, profile: Profile) -> str:
    """`zoom(id, 1)`: the message's line whole (after `{id}+0|` under
    `zoom_one: headed`); `zoom(id, n)`: the node's two halves rendered like
    the view (their two rows alone, joined by a newline, under `zoom_halves:
    bare`) (SPEC 3.5, 10)."""
    node = zoomed_node(tree, count, id, n, profile)
    if node.level == 0:
        line = trees.message(tree, node.index)
        return f"{bits.to_int(id)}+0|{line}" if profile.zoom_one == "headed" else line
    halves = nodes.halves(node)
    if profile.zoom_halves == "bare":
        return "\n".join(
            f"{nodes.name(h)}|{texts.flatten(renders.shown_text(tree, h))}" for h in halves
        )
    return renders.render(halves, tree, profile)
