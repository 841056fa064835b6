"""Zoom: a turn opening a part of the chat (SPEC 3.5)."""

from __future__ import annotations

from model import bits
from model import node as nodes
from model import render as renders
from model import tree as trees
from model.bits import Bits
from model.errors import Refused
from model.node import Node
from model.profile import Profile
from model.tree import Tree


def zoomed_node(count: Bits, id: Bits, n: Bits) -> Node:
    """The node `zoom(id, n)` opens, `(log2 n, id/n)`; Refused (rule `zoom`)
    unless n is a power of two, id a multiple of n, and the node's messages
    are all logged (SPEC 3.5)."""
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
    return node


def zoom(tree: Tree, count: Bits, id: Bits, n: Bits, profile: Profile) -> str:
    """`zoom(id, 1)`: the message's line whole; `zoom(id, n)`: the node's two
    halves rendered like the view (SPEC 3.5)."""
    node = zoomed_node(count, id, n)
    if node.level == 0:
        return trees.message(tree, node.index)
    return renders.render(nodes.halves(node), tree, profile)
