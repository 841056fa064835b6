"""A planner written the way peer engines write it: the same integers and
rules as `impl/`, but every merge scans every pair of the view for the most
due and every size is recomputed from the lines. The yardstick for the
engine's queues, not a second implementation to trust."""

from __future__ import annotations

from bench.workload import line_for

PLACEHOLDER_SIZE = 29


class NaivePlanner:
    """Chat view, compaction view and tree; every node built as soon as it
    can be (a compactor never late), so only the planner's cost is measured."""

    def __init__(self, node: int, ceiling: int, floor: int, cceiling: int, cfloor: int) -> None:
        self.node, self.ceiling, self.floor = node, ceiling, floor
        self.cceiling, self.cfloor = cceiling, cfloor
        self.texts: dict[tuple[int, int], str] = {}
        self.view: list[tuple[int, int]] = []
        self.cview: list[tuple[int, int]] = []
        self.shrinking = self.cshrinking = False
        self.count = 0

    def size(self, view: list[tuple[int, int]]) -> int:
        return sum(len(self.texts.get(n, "x" * PLACEHOLDER_SIZE).encode()) for n in view)

    def fit(self, view: list[tuple[int, int]], budget: int) -> bool:
        merged = False
        while self.size(view) > budget:
            best, key = None, None
            for k in range(len(view) - 1):
                (la, ia), (lb, ib) = view[k], view[k + 1]
                if la == lb and ia % 2 == 0 and ib == ia + 1 and (la + 1, ia // 2) in self.texts:
                    # (T + 1)/2^l - i, compared exactly as a fraction over 2^l.
                    due = ((self.count + 1) - (ia << la), la)
                    if key is None or due[0] << key[1] > key[0] << due[1]:
                        best, key = k, due
            if best is None:
                break
            level, index = view[best]
            view[best : best + 2] = [(level + 1, index // 2)]
            merged = True
        return merged

    def build(self, node: tuple[int, int], source: str) -> None:
        """Build a node from its source: itself when free, else the compactor's line."""
        self.texts[node] = source if len(source.encode()) <= self.node else line_for(*node)
        level, index = node
        sibling = (level, index ^ 1)
        if sibling in self.texts:
            left, right = sorted((node, sibling))
            self.build((level + 1, index // 2), self.texts[left] + "\n" + self.texts[right])

    def message(self, kind: str, text: str) -> None:
        leaf = (0, self.count)
        self.count += 1
        source = f"{kind}: {text}"
        free = len(source.encode()) <= self.node
        if free:
            self.build(leaf, source)
        self.view.append(leaf)
        merged = False
        if self.shrinking or self.size(self.view) > self.ceiling:
            merged = self.fit(self.view, self.floor)
            self.shrinking = self.size(self.view) > self.floor
        if merged:
            self.cview = list(self.view)
            self.fit(self.cview, self.cfloor)
            self.cshrinking = self.size(self.cview) > self.cfloor
        else:
            self.cview.append(leaf)
            if self.cshrinking or self.size(self.cview) > self.cceiling:
                self.fit(self.cview, self.cfloor)
                self.cshrinking = self.size(self.cview) > self.cfloor
        if not free:
            self.build(leaf, source)
