"""A view with its sawtooth state: lines tiling the chat, size, and the
mergeable pairs in due order (SPEC 3, 3.1, 3.3, 3.4).

The merge order lives here and only here. A pair is named by its older line
`(l, i)`, i even. Its due is `(T - last)/2^l` with `last = (i+2)*2^l - 1`,
which is `(T + 1 - first)/2^l - 2` with `first = i*2^l`: the same order as
`(T + 1 - first) / 2^l`. Multiplied by 2^top, with top above every level,
that is the integer `(T + 1 - first) << (top - l)`: exact, no division, and
one number per pair, so the best of the level heads is a plain maximum.
Within one level that key falls as `i` grows, so the oldest mergeable pair of
a level is its most due one: each level keeps its mergeable pairs in a heap
by `i`, and the most due pair overall is the best of the level heads, the
oldest among equals. A pair leaves its heap only by being merged, which is
always at its level's head, so the heaps need no deletion.
"""

from __future__ import annotations

import heapq

from impl.constants import PLACEHOLDER
from impl.text import size as text_size
from impl.tree import Node, Tree, first, parent

PLACEHOLDER_SIZE = text_size(PLACEHOLDER)


class View:
    """A view (SPEC 3) on a tree: `lines` maps each line's first message to
    its level, `order` lists the lines oldest first, `size` is their size,
    `shrinking` is the sawtooth flag (SPEC 3.3), `merges` the parents its last
    batch made."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.lines: dict[int, int] = {}
        self.order: list[Node] = []
        self.count = 0
        self.size = 0
        self.pairs: list[list[int]] = []
        self.shrinking = False
        self.merges: list[Node] = []

    def copy(self) -> View:
        """An independent view with the same lines and state (SPEC 3.4)."""
        other = View(self.tree)
        other.lines = dict(self.lines)
        other.order = list(self.order)
        other.count = self.count
        other.size = self.size
        other.pairs = [list(heap) for heap in self.pairs]
        other.shrinking = self.shrinking
        other.merges = list(self.merges)
        return other

    def has_line(self, node: Node) -> bool:
        """Whether `node` is a line of the view (SPEC 3)."""
        return self.lines.get(first(node)) == node[0]

    def line_size(self, node: Node) -> int:
        """A line's size: its raw text, or the placeholder's 29 bytes (SPEC 3)."""
        found = self.tree.size(node)
        return PLACEHOLDER_SIZE if found is None else found

    def _offer(self, level: int, left: int) -> None:
        """Queue pair `(level, left)` when both lines are present and the parent built."""
        if (
            self.lines.get(left << level) == level
            and self.lines.get((left + 1) << level) == level
            and self.tree.is_built((level + 1, left >> 1))
        ):
            while len(self.pairs) <= level:
                self.pairs.append([])
            heapq.heappush(self.pairs[level], left)

    def append(self, leaf: Node) -> None:
        """A message's leaf line joins the end (SPEC 3.3)."""
        self.lines[leaf[1]] = 0
        self.order.append(leaf)
        self.count += 1
        self.size += self.line_size(leaf)
        self._offer(0, leaf[1] & ~1)

    def built(self, node: Node) -> None:
        """`node` was just built: a line of it drops its placeholder, and a pair
        under it may become mergeable (SPEC 3.1, 3.3)."""
        if self.has_line(node):
            self.size += self.line_size(node) - PLACEHOLDER_SIZE
        if node[0] > 0:
            self._offer(node[0] - 1, 2 * node[1])

    def most_due(self) -> Node | None:
        """The most due mergeable pair at T = `count`, oldest among equals (SPEC 3.1)."""
        top = len(self.pairs)
        best: tuple[int, int] | None = None
        pair: Node | None = None
        for level, heap in enumerate(self.pairs):
            if heap:
                first_message = heap[0] << level
                key = ((self.count + 1 - first_message) << (top - level), -first_message)
                if best is None or key > best:
                    best, pair = key, (level, heap[0])
        return pair

    def merge(self, pair: Node) -> Node:
        """Replace `pair`, which must be `most_due()`, by its parent; returns the
        parent (SPEC 3.1). `order` is stale until `settle_order`."""
        level, left = pair
        heapq.heappop(self.pairs[level])
        up = parent(pair)
        self.size += self.line_size(up) - self.line_size(pair) - self.line_size((level, left + 1))
        del self.lines[(left + 1) << level]
        self.lines[left << level] = level + 1
        self._offer(level + 1, up[1] & ~1)
        return up

    def settle_order(self) -> None:
        """Rebuild `order` from `lines` after merges, in one walk (SPEC 3)."""
        order: list[Node] = []
        at = 0
        while at < self.count:
            level = self.lines[at]
            order.append((level, at >> level))
            at += 1 << level
        self.order = order

    def fit(self, budget: int) -> list[Node]:
        """One batch: merge the most due mergeable pair while the view is over
        `budget` bytes; returns the parents made, in order (SPEC 3.1, 3.3)."""
        merges: list[Node] = []
        while self.size > budget:
            pair = self.most_due()
            if pair is None:
                break
            merges.append(self.merge(pair))
        if merges:
            self.settle_order()
        return merges

    def batch(self, budget: int) -> None:
        """Run one batch down to `budget` and set the shrinking flag (SPEC 3.3)."""
        self.merges = self.fit(budget)
        self.shrinking = self.size > budget

    def receive(self, ceiling: int, floor: int) -> bool:
        """After a leaf is appended: when the view is over `ceiling` or still
        shrinking, one batch to `floor`; returns whether a batch ran (SPEC 3.3)."""
        if self.shrinking or self.size > ceiling:
            self.batch(floor)
            return True
        self.merges = []
        return False
