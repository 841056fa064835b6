"""Views: lists of nodes tiling the chat, their size, their mergeable pairs,
and merging (SPEC 3, 3.1).

A view is a tuple of nodes, oldest first. A merge builds a new tuple. The
view's mergeable pairs are few, and they change only where the view changes
(a line appended, a pair merged) or where a parent is built, so a batch keeps
them (`Pairs`) and picks the most due among them instead of reading every
line of the view at every merge; only the oldest pair of each level is
compared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from model import bits
from model import node as nodes
from model import text as texts
from model import tree as trees
from model.bits import Bits
from model.constants import PLACEHOLDER
from model.due import Order, more_due
from model.node import Node
from model.profile import Profile
from model.tree import Tree

View = tuple[Node, ...]

Pairs = tuple[Node, ...]
"""A view's mergeable pairs, each named by its older line, oldest first (SPEC 3.1)."""


def measured(text: str, profile: Profile) -> int:
    """The size a line's text counts for in a view: its raw bytes, or under
    `flat_sizes` its bytes flattened, each run of line breaks one byte
    (SPEC 3, 10)."""
    return texts.flat_size(text) if profile.flat_sizes else texts.size(text)


def row_head(node: Node) -> int:
    """The bytes a view's row adds to its text: `{start}+{count}|` and the
    newline (SPEC 3, 10 `row_sizes`)."""
    return texts.size(nodes.name(node)) + 2


def in_row(size: int, node: Node, profile: Profile) -> int:
    """A line's text's size as the line's size: under `row_sizes` with its
    row's head (SPEC 3, 10)."""
    return size + row_head(node) if profile.row_sizes else size


def line_size(tree: Tree, node: Node, profile: Profile) -> int:
    """A line's size: its node's text, or the placeholder's 29 bytes, as
    `measured`, `in_row` (SPEC 3, 10)."""
    line = trees.text(tree, node)
    return in_row(measured(PLACEHOLDER if line is None else line, profile), node, profile)


def size(view: View, tree: Tree, profile: Profile) -> int:
    """The sum of the view's line sizes (SPEC 3)."""
    return sum(line_size(tree, line, profile) for line in view)


def line_at(view: View, message: Bits) -> int:
    """The position of the line holding a logged message. The view tiles the
    chat oldest first, so it is found by halving the view (SPEC 3)."""
    low, high = 0, len(view)
    while high - low > 1:
        middle = (low + high) // 2
        if bits.less(message, nodes.first(view[middle])):
            high = middle
        else:
            low = middle
    return low


def position(view: View, node: Node) -> int | None:
    """Where `node` is a line of the view, or None (SPEC 3)."""
    k = line_at(view, nodes.first(node)) if view else 0
    return k if k < len(view) and view[k] == node else None


def is_pair(view: View, k: int) -> bool:
    """Whether lines k and k+1 are a pair: siblings `(l, i)`, `(l, i+1)`, i even (SPEC 3.1)."""
    return k + 1 < len(view) and nodes.is_left(view[k]) and view[k + 1] == nodes.sibling(view[k])


Built = Callable[[Node], bool]
"""Whether a node is built."""


def is_mergeable(view: View, k: int, built: Built) -> bool:
    """A pair is mergeable when its parent is built (SPEC 3.1)."""
    return is_pair(view, k) and built(nodes.parent(view[k]))


def mergeable_pairs(view: View, built: Built) -> Pairs:
    """Every mergeable pair of the view, oldest first (SPEC 3.1)."""
    return tuple(view[k] for k in range(len(view) - 1) if is_mergeable(view, k, built))


def level_heads(pairs: Iterable[Node]) -> Pairs:
    """The oldest of `pairs` (given oldest first) at each level, oldest first.
    Pairs of one level are due in age order (with `la = lb` the compare reads
    `e_a < e_b`): every other pair is less due than the oldest of its level, so
    the most due pair, the oldest among equals, is one of these (SPEC 3.1)."""
    levels: set[int] = set()
    heads: list[Node] = []
    for pair in pairs:
        if pair.level not in levels:
            levels.add(pair.level)
            heads.append(pair)
    return tuple(heads)


def most_due_of(pairs: Iterable[Node], count: Bits, order: Order = more_due) -> Node | None:
    """The most due of `pairs` (given oldest first), the oldest among equals;
    None when there is none. Only the oldest pair of each level can be it
    (SPEC 3.1)."""
    best: Node | None = None
    for pair in level_heads(pairs):
        if best is None or order(count, pair, best):
            best = pair
    return best


def most_due(view: View, count: Bits, built: Built, order: Order = more_due) -> int | None:
    """The position of the most due mergeable pair, the oldest among equals;
    None when no pair is mergeable (SPEC 3.1)."""
    best = most_due_of(mergeable_pairs(view, built), count, order)
    return None if best is None else line_at(view, nodes.first(best))


def merge(view: View, k: int) -> View:
    """The view with the pair at k replaced by its parent (SPEC 3.1)."""
    return view[:k] + (nodes.parent(view[k]),) + view[k + 2 :]


def appended(view: View, pairs: Pairs, built: Built) -> Pairs:
    """The mergeable pairs once the view's last line was appended to it: the
    two last lines may have become one (SPEC 3.1, 3.3)."""
    k = len(view) - 2
    return pairs + (view[k],) if k >= 0 and is_mergeable(view, k, built) else pairs


def _merged(view: View, pairs: Pairs, pair: Node, k: int, built: Built) -> Pairs:
    """The mergeable pairs once `pair` became the parent at k of `view`: it
    leaves them, and the parent may make one with a neighbour, in its place
    in age (SPEC 3.1)."""
    made = tuple(view[j] for j in (k - 1, k) if j >= 0 and is_mergeable(view, j, built))
    at = pairs.index(pair)
    return pairs[:at] + made + pairs[at + 1 :]


def with_built(view: View, pairs: Pairs, parents: Iterable[Node], built: Built) -> Pairs:
    """The mergeable pairs once `parents` were built: a pair of the view whose
    parent is one of them becomes mergeable, in its place in age (SPEC 3.1)."""
    for parent in parents:
        if parent.level == 0:
            continue
        half, _ = nodes.halves(parent)
        k = position(view, half)
        if k is None or half in pairs or not is_mergeable(view, k, built):
            continue
        first = nodes.first(half)
        older = sum(1 for p in pairs if bits.less(nodes.first(p), first))
        pairs = pairs[:older] + (half,) + pairs[older:]
    return pairs


@dataclass(frozen=True, slots=True)
class Fit:
    """A view after a batch, the parents the batch made, in order, the view's
    weight at the end, and its mergeable pairs (SPEC 3.1)."""

    view: View
    merges: tuple[Node, ...]
    weight: int
    pairs: Pairs


def fit(
    view: View,
    count: Bits,
    built: Built,
    weight: Callable[[Node], int],
    budget: int,
    order: Order = more_due,
    total: int | None = None,
    pairs: Pairs | None = None,
) -> Fit:
    """Merge the most due mergeable pair while the view weighs more than
    `budget` (the sum of its lines' weights, `total` when the caller knows
    it) and a pair is mergeable (`pairs`, when the caller keeps them)
    (SPEC 3.1)."""
    if total is None:
        total = sum(weight(line) for line in view)
    if pairs is None:
        pairs = mergeable_pairs(view, built)
    merges: list[Node] = []
    while total > budget:
        pair = most_due_of(pairs, count, order)
        if pair is None:
            break
        k = line_at(view, nodes.first(pair))
        up = nodes.parent(pair)
        total += weight(up) - weight(pair) - weight(view[k + 1])
        merges.append(up)
        view = merge(view, k)
        pairs = _merged(view, pairs, pair, k, built)
    return Fit(view, tuple(merges), total, pairs)


def fit_bytes(
    view: View,
    count: Bits,
    tree: Tree,
    budget: int,
    size: int,
    pairs: Pairs,
    profile: Profile,
    order: Order = more_due,
) -> Fit:
    """`fit` to a byte budget: merge a view of `size` bytes, whose mergeable
    pairs are `pairs`, until it is at most `budget` (SPEC 3.3)."""
    return fit(
        view,
        count,
        lambda n: trees.is_built(tree, n),
        lambda n: line_size(tree, n, profile),
        budget,
        order,
        size,
        pairs,
    )
