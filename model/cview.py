"""The compaction view and the context of a node (SPEC 3.4)."""

from __future__ import annotations

from model import bits
from model import node as nodes
from model import tree as trees
from model.bits import Bits
from model.node import Node
from model.profile import Profile
from model.sawtooth import Sawtooth, batch, receive
from model.tree import Tree
from model.view import View


def follow(
    csaw: Sawtooth,
    chat: Sawtooth,
    leaf: Node,
    count: Bits,
    tree: Tree,
    cceiling: int,
    cfloor: int,
    profile: Profile,
) -> Sawtooth:
    """The compaction view after a message (SPEC 3.4): when the chat view's
    batch merged, the chat view merged further down to CFLOOR; otherwise the
    leaf appended, merged down to CFLOOR when over CCEILING or still shrinking."""
    if chat.merges:
        return further(chat, count, tree, cfloor, profile)
    return receive(csaw, leaf, count, tree, cceiling, cfloor, profile)


def further(chat: Sawtooth, count: Bits, tree: Tree, cfloor: int, profile: Profile) -> Sawtooth:
    """The compaction view once the chat view's batch merged: the chat view
    merged further down to CFLOOR (SPEC 3.4)."""
    return batch(chat, count, tree, cfloor, profile)


def context_end(node: Node) -> Bits:
    """Where a node's context stops: `i` for a leaf (the lines before its
    message), `(i+1)*2^l` for a merge (the lines up to its last message) (SPEC 3.4)."""
    return node.index if node.level == 0 else nodes.end(node)


def context(cview: View, tree: Tree, node: Node) -> View:
    """The compaction view's lines wholly below the node's context end, oldest
    first, stopping at the first line that is not built (SPEC 3.4)."""
    stop = context_end(node)
    out: list[Node] = []
    for line in cview:
        if bits.less(stop, nodes.end(line)) or not trees.is_built(tree, line):
            break
        out.append(line)
    return tuple(out)
