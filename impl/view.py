"""A view with its sawtooth state: lines tiling the chat, size, and the
mergeable pairs in due order (SPEC 3, 3.1, 3.3, 3.4).

The merge order lives here and only here. A pair is named by its older line
`(l, i)`, i even. Its due is `(T - last)/2^l` with `last = (i+2)*2^l - 1`,
which is `(T + 1 - first)/2^l - 2` with `first = i*2^l`: the same order as
`(T + 1 - first) / 2^l`. Multiplied by 2^top, with top above every level,
that is the integer `(T + 1 - first) << (top - l)`: exact, no division, and
one number per pair, so the best of the level heads is a plain maximum.
Within one level that key falls as `i` grows, so the oldest mergeable pair of
a level is its most due one: each level with a mergeable pair keeps them in a
heap by `i`, and the most due pair overall is the best of those heads, the
oldest among equals. A pair leaves its heap only by being merged, which is
always at its level's head, so the heaps need no deletion.

The lines are kept three ways, each for the question it answers fast:
`lines` (first message -> level) says whether a node is a line, `order` lists
them oldest first, and `starts` (their first messages) finds a line's place
in `order` by bisection when a merge replaces two lines by one. Beside
`order`, `made_rows` holds each built line's rendered row once it has been
asked for (None until then; an unbuilt line's placeholder row is made each
time): the view is rendered after every batch, and most of its rows are the
same as last time. A row missing in one view is taken from the other view
when that view has made it (`rows(upto, other)`): the compaction view merges
ahead of the chat view, so most lines new to the chat view were rendered as
compaction lines first.
"""

from __future__ import annotations

from bisect import bisect_left
from heapq import heappop, heappush
from typing import Final

from impl.constants import PLACEHOLDER
from impl.digest import MASK, line_hash
from impl.render import row
from impl.text import flat_size
from impl.text import size as text_size
from impl.tree import Node, Tree, first, name

PLACEHOLDER_SIZE: Final = text_size(PLACEHOLDER)


class View:
    """A view (SPEC 3) on a tree: its lines (see above), `size` in bytes,
    `digest` the protocol's digest of its lines (impl/digest.py), `pairs` the
    heaps of mergeable pairs by level, `top` above every level with a pair,
    `shrinking` the sawtooth flag (SPEC 3.3), and `merges` the parents its
    last batch made. Under `flat_sizes` a line's text counts as its size
    flattened, and under `row_sizes` a line counts its row's head too (SPEC
    10)."""

    def __init__(self, tree: Tree, flat_sizes: bool = False, row_sizes: bool = False) -> None:
        self.tree = tree
        self.flat_sizes = flat_sizes
        self.row_sizes = row_sizes
        self.lines: dict[int, int] = {}
        self.order: list[Node] = []
        self.starts: list[int] = []
        self.made_rows: list[str | None] = []
        self.count = 0
        self.size = 0
        self.digest = 0
        self.pairs: dict[int, list[int]] = {}
        self.top = 0
        self.shrinking = False
        self.merges: tuple[Node, ...] = ()
        self._snapshot: tuple[Node, ...] | None = None

    def copy(self) -> View:
        """An independent view with the same lines and state (SPEC 3.4)."""
        other = View(self.tree, self.flat_sizes, self.row_sizes)
        other.lines = self.lines.copy()
        other.order = self.order.copy()
        other.starts = self.starts.copy()
        other.made_rows = self.made_rows.copy()
        other.count = self.count
        other.size = self.size
        other.digest = self.digest
        other.pairs = {level: heap.copy() for level, heap in self.pairs.items()}
        other.top = self.top
        other.shrinking = self.shrinking
        other.merges = self.merges
        other._snapshot = self._snapshot
        return other

    def snapshot(self) -> tuple[Node, ...]:
        """The lines oldest first, as a tuple made once per change of `order`
        (SPEC 3): a turn reads the view far more often than it changes."""
        if self._snapshot is None:
            self._snapshot = tuple(self.order)
        return self._snapshot

    def rows(self, upto: int | None = None, other: View | None = None) -> list[str]:
        """The rendered rows of the first `upto` lines (all by default): a
        line's text, or the placeholder while unbuilt (SPEC 3). A built
        line's row that `other`, a view on the same tree, has made is taken
        from it (see `made_row`)."""
        made = self.made_rows[:upto]
        texts = self.tree.texts
        # A plain loop, not list.count and list.index: those compare every
        # row with None through the generic comparison, and the C build's
        # loop tests identity.
        for at in range(len(made)):
            if made[at] is None:
                level, index = line = self.order[at]
                text = texts[level][index]
                if text is None:
                    made[at] = row(line, PLACEHOLDER)
                else:
                    found = None if other is None else other.made_row(line)
                    made[at] = self.made_rows[at] = row(line, text) if found is None else found
        return made  # type: ignore[return-value]

    def made_row(self, node: Node) -> str | None:
        """The row made for line `node` of this view, if it is one and its row
        is made. The compaction view merges further than the chat view, so
        the chat view's new lines are often rows the compaction view has
        already rendered."""
        start = first(node)
        if self.lines.get(start, -1) != node[0]:
            return None
        return self.made_rows[bisect_left(self.starts, start)]

    def has_line(self, node: Node) -> bool:
        """Whether `node` is a line of the view (SPEC 3)."""
        return self.lines.get(first(node), -1) == node[0]

    def _offer(self, level: int, left: int) -> None:
        """Queue pair `(level, left)` when both lines are present and the
        parent built. Both lines present puts the parent inside the log."""
        lines = self.lines
        # Looked up with a default of -1, not None: the C build then
        # compares two machine integers, not two Python objects.
        if (
            lines.get(left << level, -1) == level
            and lines.get((left + 1) << level, -1) == level
            and self.tree.texts[level + 1][left >> 1] is not None
        ):
            heap = self.pairs.get(level)
            if heap is None:
                self.pairs[level] = [left]
                if level >= self.top:
                    self.top = level + 1
            else:
                heappush(heap, left)

    def append(self, leaf: Node) -> None:
        """A message's leaf line joins the end (SPEC 3.3); its size is its
        text's or, while unbuilt, the placeholder's (SPEC 3)."""
        index = leaf[1]
        self.lines[index] = 0
        self.order.append(leaf)
        self.starts.append(index)
        self.made_rows.append(None)
        self._snapshot = None
        self.count += 1
        self.digest = (self.digest + line_hash(0, index)) & MASK
        self.size += self.line_size(leaf)
        if index & 1:
            self._offer(0, index - 1)

    def line_size(self, node: Node) -> int:
        """A line's size: its text's bytes (under `flat_sizes` with each run
        of line breaks one byte), or the placeholder's while unbuilt; under
        `row_sizes` with its row's head, `{start}+{count}|` and the newline
        (SPEC 3, 10)."""
        level, index = node
        found = self.tree.sizes[level][index]
        if found < 0:
            found = PLACEHOLDER_SIZE
        elif self.flat_sizes:
            found = flat_size(self.tree.texts[level][index])  # type: ignore[arg-type]
        return found + self._head(node)

    def _head(self, node: Node) -> int:
        """What a row adds to its text's size: under `row_sizes` its head and
        newline, otherwise nothing (SPEC 10)."""
        return len(name(node)) + 2 if self.row_sizes else 0

    def built(self, node: Node) -> None:
        """`node` was just built: a line of it drops its placeholder, and a pair
        under it may become mergeable (SPEC 3.1, 3.3)."""
        level, index = node
        if self.lines.get(index << level, -1) == level:
            self.size += self.line_size(node) - PLACEHOLDER_SIZE - self._head(node)
        if level > 0:
            self._offer(level - 1, 2 * index)

    def most_due(self) -> Node | None:
        """The most due mergeable pair at T = `count`, oldest among equals (SPEC 3.1)."""
        top, best = self.top, -1
        best_due = best_first = -1  # every due is positive
        for level, heap in self.pairs.items():
            first_message = heap[0] << level
            due = (self.count + 1 - first_message) << (top - level)
            if due > best_due or (due == best_due and first_message < best_first):
                best_due, best_first, best = due, first_message, level
        return None if best < 0 else (best, self.pairs[best][0])

    def merge(self, pair: Node) -> Node:
        """Replace `pair`, which must be `most_due()`, by its parent; returns the
        parent (SPEC 3.1). A mergeable pair's parent is built, and so are its
        halves: no placeholder is involved."""
        level, left = pair
        heap = self.pairs[level]
        heappop(heap)
        if not heap:
            del self.pairs[level]
        up = (level + 1, left >> 1)
        gone = line_hash(level, left) + line_hash(level, left + 1)
        self.digest = (self.digest - gone + line_hash(level + 1, left >> 1)) & MASK
        size = self.line_size
        self.size += size(up) - size(pair) - size((level, left + 1))
        start = left << level
        del self.lines[(left + 1) << level]
        self.lines[start] = level + 1
        at = bisect_left(self.starts, start)
        # `pop`, not `del`: the C build calls the list's own pop directly.
        self.order[at] = up
        self.order.pop(at + 1)
        self.made_rows[at] = None
        self.made_rows.pop(at + 1)
        self.starts.pop(at + 1)
        self._snapshot = None
        self._offer(level + 1, (left >> 1) & ~1)
        return up

    def batch(self, budget: int) -> None:
        """One batch: merge the most due mergeable pair while the view is over
        `budget` bytes, keep the parents made, in order, and set the shrinking
        flag (SPEC 3.1, 3.3)."""
        merges: list[Node] = []
        while self.size > budget and self.pairs:
            merges.append(self.merge(self.most_due()))  # type: ignore[arg-type]
        self.merges = tuple(merges)
        self.shrinking = self.size > budget

    def receive(self, ceiling: int, floor: int) -> bool:
        """After a leaf is appended: when the view is over `ceiling` or still
        shrinking, one batch to `floor`; returns whether a batch ran (SPEC 3.3)."""
        if self.shrinking or self.size > ceiling:
            self.batch(floor)
            return True
        self.merges = ()
        return False
