"""Views: lists of nodes tiling the chat, their size, and merging (SPEC 3, 3.1).

A view is a tuple of nodes, oldest first. Views are short (hundreds of
lines), so a merge builds a new tuple.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from model import node as nodes
from model import text as texts
from model import tree as trees
from model.bits import Bits
from model.constants import PLACEHOLDER
from model.due import Order, more_due
from model.node import Node
from model.tree import Tree

View = tuple[Node, ...]


def line_size(tree: Tree, node: Node) -> int:
    """A line's size: its node's raw text, or the placeholder's 29 bytes (SPEC 3)."""
    line = trees.text(tree, node)
    return texts.size(PLACEHOLDER if line is None else line)


def size(view: View, tree: Tree) -> int:
    """The sum of the view's line sizes (SPEC 3)."""
    return sum(line_size(tree, line) for line in view)


def is_pair(view: View, k: int) -> bool:
    """Whether lines k and k+1 are a pair: siblings `(l, i)`, `(l, i+1)`, i even (SPEC 3.1)."""
    return k + 1 < len(view) and nodes.is_left(view[k]) and view[k + 1] == nodes.sibling(view[k])


Built = Callable[[Node], bool]
"""Whether a node is built."""


def is_mergeable(view: View, k: int, built: Built) -> bool:
    """A pair is mergeable when its parent is built (SPEC 3.1)."""
    return is_pair(view, k) and built(nodes.parent(view[k]))


def most_due(view: View, count: Bits, built: Built, order: Order = more_due) -> int | None:
    """The position of the most due mergeable pair, the oldest among equals;
    None when no pair is mergeable (SPEC 3.1)."""
    best: int | None = None
    for k in range(len(view) - 1):
        if is_mergeable(view, k, built) and (best is None or order(count, view[k], view[best])):
            best = k
    return best


def merge(view: View, k: int) -> View:
    """The view with the pair at k replaced by its parent (SPEC 3.1)."""
    return view[:k] + (nodes.parent(view[k]),) + view[k + 2 :]


@dataclass(frozen=True, slots=True)
class Fit:
    """A view after a batch, the parents the batch made, in order, and the
    view's weight at the end (SPEC 3.1)."""

    view: View
    merges: tuple[Node, ...]
    weight: int


def fit(
    view: View,
    count: Bits,
    built: Built,
    weight: Callable[[Node], int],
    budget: int,
    order: Order = more_due,
    total: int | None = None,
) -> Fit:
    """Merge the most due mergeable pair while the view weighs more than
    `budget` (the sum of its lines' weights, `total` when the caller knows
    it) and a pair is mergeable (SPEC 3.1)."""
    if total is None:
        total = sum(weight(line) for line in view)
    merges: list[Node] = []
    while total > budget:
        k = most_due(view, count, built, order)
        if k is None:
            break
        up = nodes.parent(view[k])
        total += weight(up) - weight(view[k]) - weight(view[k + 1])
        merges.append(up)
        view = merge(view, k)
    return Fit(view, tuple(merges), total)


def fit_bytes(
    view: View, count: Bits, tree: Tree, budget: int, size: int, order: Order = more_due
) -> Fit:
    """`fit` to a byte budget: merge a view of `size` bytes until it is at
    most `budget` (SPEC 3.3)."""
    return fit(
        view,
        count,
        lambda n: trees.is_built(tree, n),
        lambda n: line_size(tree, n),
        budget,
        order,
        size,
    )
