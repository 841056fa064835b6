"""A planted bug for grouping failures into causes (issue 40): a leaf
whose call is running no longer counts toward AHEAD (SPEC 4 counts the
unbuilt leaves before a leaf, started or not), so more leaves are offered
and may start. It shows in the queue at messages, starts, ends and fails,
and in the starts the engine takes. `plant()` puts it into the engine in
this process (with `put`, a test's monkeypatch.setattr)."""

from bisect import bisect_left
from collections.abc import Callable

from impl import queue

right_work = queue.Queue._work
right_start = queue.Queue.start


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    """AHEAD counted over the leaves not running."""

    def work(self: queue.Queue) -> tuple[tuple[queue.Node, ...], tuple[queue.Node, ...]]:
        unbuilt = self.unbuilt
        self.unbuilt = [n for n in unbuilt if n not in self.running]
        try:
            head = self.unbuilt[: self.ahead]
            self.unbuilt = head + [n for n in unbuilt if n not in head]
            return right_work(self)
        finally:
            self.unbuilt = unbuilt

    def unbuilt_before(self: queue.Queue, index: int) -> int:
        waiting = [n for n in self.unbuilt if n not in self.running]
        return bisect_left(waiting, (0, index))

    def start(self: queue.Queue, node: queue.Node) -> None:
        right_start(self, node)
        self._offered = None  # one more leaf may be offered now

    put(queue.Queue, "_work", work)
    put(queue.Queue, "start", start)
    put(queue.Queue, "unbuilt_before", unbuilt_before)
