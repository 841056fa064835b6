"""The work queue: which compaction calls may start (SPEC 4).

Work is kept in two sorted lists filled when messages arrive and nodes are
built, never found by scanning the tree: the unbuilt leaves by id (a bisect
counts the unbuilt leaves before a leaf, for AHEAD) and the ready merges by
(level, index).

Every unbuilt leaf is a line of both views (a line is merged away only into a
built parent, and a parent is built only after its halves), and every
unbuilt line of a view is a leaf. So "the view's unbuilt lines" that a
waiting turn allows are exactly the unbuilt leaves.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any

from impl.tree import Node


def _discard(items: list[Any], key: Any) -> None:
    """Remove `key` from the sorted list `items` if it is there."""
    at = bisect_left(items, key)
    if at < len(items) and items[at] == key:
        del items[at]


class Queue:
    """The compactor's state (SPEC 4): `unbuilt` leaf ids that need a call,
    `ready` merges that need a call, `running` calls in start order, `held`
    nodes whose last call failed (until the next message or retry tick),
    `failures` failed calls per unbuilt node, `waiting` for a settled view."""

    def __init__(self) -> None:
        self.unbuilt: list[int] = []
        self.ready: list[Node] = []
        self.running: dict[Node, None] = {}
        self.held: set[Node] = set()
        self.failures: dict[Node, int] = {}
        self.waiting = False

    def add_leaf(self, index: int) -> None:
        """A new message whose line needs a call; ids only grow (SPEC 4)."""
        self.unbuilt.append(index)

    def unbuilt_before(self, index: int) -> int:
        """How many leaves before leaf `index` are unbuilt (SPEC 4, AHEAD)."""
        return bisect_left(self.unbuilt, index)

    def after_build(self, made: list[Node], ready: Node | None) -> None:
        """Built nodes leave every queue; a parent that needs a call becomes ready (SPEC 2, 4)."""
        for node in made:
            if node[0] == 0:
                _discard(self.unbuilt, node[1])
            else:
                _discard(self.ready, node)
            self.running.pop(node, None)
            self.held.discard(node)
            self.failures.pop(node, None)
        if ready is not None:
            insort(self.ready, ready)

    def candidates(self, jobs: int, ahead: int, waiting: bool) -> list[Node]:
        """The calls that may start, in queue order: unbuilt leaves oldest first
        within AHEAD, then (unless a turn waits) ready merges by (level, index);
        none running or held; as many as JOBS leaves room for. With `waiting`
        the running merges count as stopped (SPEC 4, law need_first)."""
        running = self.running
        busy_count = sum(1 for n in running if n[0] == 0) if waiting else len(running)
        room = jobs - busy_count
        if room <= 0:
            return []
        held = self.held
        work: list[Node] = []
        for i in self.unbuilt[:ahead]:
            leaf = (0, i)
            if leaf not in running and leaf not in held:
                work.append(leaf)
                if len(work) == room:
                    return work
        if not waiting:
            for merge in self.ready:
                if merge not in running and merge not in held:
                    work.append(merge)
                    if len(work) == room:
                        break
        return work

    def fail(self, node: Node) -> int:
        """A running call failed: hold the node and count the failure; returns
        the node's failure count (SPEC 4)."""
        del self.running[node]
        self.held.add(node)
        self.failures[node] = self.failures.get(node, 0) + 1
        return self.failures[node]

    def begin_wait(self) -> None:
        """A turn waits: running merge calls stop, without a failure (SPEC 4)."""
        self.waiting = True
        self.running = {n: None for n in self.running if n[0] == 0}
