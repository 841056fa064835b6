"""Tree nodes and their names (SPEC 2)."""

from __future__ import annotations

from typing import NamedTuple

from model import bits
from model.bits import Bits


class Node(NamedTuple):
    """Node `(l, i)`: the 2^l messages `i*2^l .. (i+1)*2^l - 1` (SPEC 2). A
    named tuple: views, queues and tries compare and hash nodes all the time."""

    level: int
    index: Bits


def first(node: Node) -> Bits:
    """The node's first message, `i*2^l` (SPEC 2)."""
    return bits.shift(node.index, node.level)


def end(node: Node) -> Bits:
    """One past the node's last message, `(i+1)*2^l` (SPEC 2)."""
    return bits.shift(bits.increment(node.index), node.level)


def parent(node: Node) -> Node:
    """`(l+1, i/2)`: the parent drops the lowest bit (SPEC 2)."""
    return Node(node.level + 1, bits.half(node.index))


def sibling(node: Node) -> Node:
    """`(l, i xor 1)`: the sibling flips the lowest bit (SPEC 2)."""
    return Node(node.level, bits.flip_lowest(node.index))


def halves(node: Node) -> tuple[Node, Node]:
    """`(l-1, 2i)` and `(l-1, 2i+1)`, the lines a merge joins (SPEC 2)."""
    if node.level == 0:
        raise ValueError("a leaf has no halves")
    left = Node(node.level - 1, bits.shift(node.index, 1))
    return left, sibling(left)


def is_left(node: Node) -> bool:
    """Whether the node is the older half of its parent (SPEC 3.1: i even)."""
    return bits.is_even(node.index)


def name(node: Node) -> str:
    """The node's name `start+count`, e.g. `(3, 5)` is `40+8` (SPEC 2); a
    node too high for those numbers to be written out is named `(level, index)`."""
    if node.level > NAMED_LEVELS:
        return f"({node.level}, {bits.to_int(node.index)})"
    return f"{bits.to_int(node.index) << node.level}+{1 << node.level}"


NAMED_LEVELS = 1024
"""The highest level whose nodes are named `start+count` (the count has 309 digits)."""


def leaf(message: Bits) -> Node:
    """`(0, i)`: message i's own node (SPEC 2)."""
    return Node(0, message)
