"""The work queue: which compaction calls may start (SPEC 4).

Work is kept in two lists of nodes filled when messages arrive and nodes
are built, never found by scanning the tree: the unbuilt leaves by id (a
bisect counts the unbuilt leaves before a leaf, for AHEAD) and the ready
merges by (level, index), or in the order they became ready under the
profile's `merge_order: ready` (SPEC 10).

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


def _without(nodes: tuple[Node, ...], node: Node) -> tuple[Node, ...]:
    """`nodes` less `node`, if it is there; `nodes` itself otherwise. One
    pass: a node is a tuple, and each comparison compares two of them."""
    for at in range(len(nodes)):
        if nodes[at] == node:
            return nodes[:at] + nodes[at + 1 :]
    return nodes


class Queue:
    """The compactor's state (SPEC 4): `unbuilt` leaves that need a call,
    `ready` merges that need a call, `running` calls in start order, `held`
    nodes whose last call failed (until the next message or retry tick), in
    the order they failed, `failures` failed calls per unbuilt node,
    `waiting` for a settled view; under `retried: first` (SPEC 10),
    `retried`, the nodes let go since, not started again, in the order they
    were let go.

    The candidates are asked for after every event but change only with the
    queue, so both lists (as the turn stands, and as if a turn waited) are
    made together and kept until the next change; every change goes through
    a method here."""

    def __init__(
        self,
        jobs: int,
        ahead: int,
        need_first: bool = True,
        ahead_in_wait: bool = True,
        held_takes_job: bool = False,
        ready_order: bool = False,
        retried_first: bool = False,
    ) -> None:
        self.jobs = jobs
        self.ahead = ahead
        self.need_first = need_first
        self.ahead_in_wait = ahead_in_wait
        self.held_takes_job = held_takes_job
        self.ready_order = ready_order
        self.retried_first = retried_first
        self.unbuilt: list[Node] = []
        self.ready: list[Node] = []
        self.running: dict[Node, None] = {}
        self.held: dict[Node, None] = {}
        self.retried: list[Node] = []
        self.failures: dict[Node, int] = {}
        self.waiting = False
        self._offered: tuple[tuple[Node, ...], tuple[Node, ...]] | None = None

    def add_leaf(self, index: int) -> None:
        """A new message whose line needs a call; ids only grow (SPEC 4)."""
        self.unbuilt.append((0, index))
        self._offered = None

    def unbuilt_before(self, index: int) -> int:
        """How many leaves before leaf `index` are unbuilt (SPEC 4, AHEAD)."""
        return bisect_left(self.unbuilt, (0, index))

    def after_build(self, node: Node, ready: Node | None) -> None:
        """`node` was built: it leaves every queue; a parent that needs a call
        becomes ready (SPEC 2, 4). The free parents built with it need no
        call, so they were never queued."""
        if node[0] and self.ready_order:
            if node in self.ready:
                self.ready.remove(node)
        else:
            _discard(self.ready if node[0] else self.unbuilt, node)
        if node in self.running:
            del self.running[node]
        if self.held:
            self.held.pop(node, None)
        if self.retried and node in self.retried:
            self.retried.remove(node)
        if self.failures:
            self.failures.pop(node, None)
        if ready is not None:
            if self.ready_order:
                self.ready.append(ready)
            else:
                insort(self.ready, ready)
        self._offered = None

    def candidates(self, waiting: bool) -> tuple[Node, ...]:
        """The calls that may start, in queue order: unbuilt leaves oldest first
        within AHEAD, then (unless a turn waits under `need_first`) ready merges
        by (level, index); none running or held; as many as JOBS leaves room
        for. With `waiting` the calls a wait stops count as stopped, and with
        `ahead_in_wait` off AHEAD does not apply (SPEC 4, 10)."""
        offered = self._offered
        if offered is None:
            offered = self._offered = self._work()
        # Indexed by constants, not by `waiting`: the C build then reads the
        # pair it holds, where a bool index made it build a Python tuple.
        return offered[1] if waiting else offered[0]

    def _work(self) -> tuple[tuple[Node, ...], tuple[Node, ...]]:
        """The candidates as they are while no turn waits, and as they are
        (or would be) while one waits."""
        held = len(self.held) if self.held_takes_job else 0
        room = self.jobs - len(self.running) - held
        within = self.unbuilt[: self.ahead]
        calm = self._offer(within, room, merges=True)
        leaves = within if self.ahead_in_wait else self.unbuilt
        if not self.need_first:
            return calm, self._offer(leaves, room, merges=True)
        # A waiting turn stops the running merges, so only running leaves use room.
        running_leaves = 0
        for node in self.running:
            if node[0] == 0:
                running_leaves += 1
        return calm, self._offer(leaves, self.jobs - held - running_leaves, merges=False)

    def _offer(self, leaves: list[Node], room: int, merges: bool = True) -> tuple[Node, ...]:
        """`leaves`, then (with `merges`) the ready merges, leaving out running
        and held nodes, cut to `room`; under `retried: first` the nodes let
        go after a failure before both (SPEC 4, 10)."""
        if room <= 0:
            return ()
        running, held = self.running, self.held
        if self.retried:
            work = [n for n in leaves if n not in running and n not in held]
            if merges:
                work += [n for n in self.ready if n not in running and n not in held]
            first = [n for n in self.retried if n in work]
            return tuple((first + [n for n in work if n not in first])[:room])
        if not running and not held:
            if not merges or len(leaves) >= room:
                return tuple(leaves[:room])
            return tuple(leaves + self.ready[: room - len(leaves)])
        work = [n for n in leaves if n not in running and n not in held]
        if merges and len(work) < room:
            for merge in self.ready:
                if merge not in running and merge not in held:
                    work.append(merge)
                    if len(work) == room:
                        break
        return tuple(work) if len(work) <= room else tuple(work[:room])

    def jobs_taken(self) -> int:
        """The JOBS places taken: one per running call, and one per held node
        under `held_takes_job` (SPEC 4, 10)."""
        return len(self.running) + (len(self.held) if self.held_takes_job else 0)

    def start(self, node: Node) -> None:
        """A call for `node`, a candidate, starts (SPEC 4). A kept list that
        holds the node simply loses it: the node takes a place of the room it
        was counted in, and nothing else is skipped. So does the waiting list
        for a merge under `need_first` (a wait would stop it: it takes no room
        there). Otherwise the lists are made again."""
        self.running[node] = None
        if self.retried and node in self.retried:
            self.retried.remove(node)
        if self._offered is not None:
            calm, waiting = self._offered
            stopped_by_wait = self.need_first and node[0] > 0
            calm_left, waiting_left = _without(calm, node), _without(waiting, node)
            if calm_left is not calm and (waiting_left is not waiting or stopped_by_wait):
                self._offered = (calm_left, waiting_left)
            else:
                self._offered = None

    def fail(self, node: Node) -> int:
        """A running call failed: hold the node and count the failure; returns
        the node's failure count (SPEC 4)."""
        del self.running[node]
        self.held[node] = None
        self._offered = None
        return self.count_failure(node)

    def count_failure(self, node: Node) -> int:
        """One more failed call for `node` (SPEC 4, FAILURES); returns its count.
        The count does not change the candidates."""
        self.failures[node] = self.failures.get(node, 0) + 1
        return self.failures[node]

    def release(self) -> None:
        """A message or a RETRY tick: held nodes may be tried again, let go in
        the order they failed (SPEC 4, 10)."""
        if self.held:
            if self.retried_first:
                self.retried.extend(self.held)
            self.held.clear()
            self._offered = None

    def begin_wait(self) -> None:
        """A turn waits: under `need_first`, running merge calls stop, without
        a failure (SPEC 4, 10)."""
        self.waiting = True
        if self.need_first:
            self.running = {n: None for n in self.running if n[0] == 0}
        self._offered = None

    def end_wait(self) -> None:
        """The waiting turn goes on (SPEC 4)."""
        self.waiting = False
