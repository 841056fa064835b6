"""A planted bug for grouping failures into causes (issue 40): the queue
offers its ready merges before its unbuilt leaves, where SPEC 4 offers the
leaves first. It shows in the queue at messages, ends and fails, and in
the starts the engine takes and refuses. `plant()` puts it into the engine
in this process (with `put`, a test's monkeypatch.setattr)."""

from collections.abc import Callable

from impl import queue

right_offer = queue.Queue._offer


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    """Merges, then leaves."""

    def offer(
        self: queue.Queue, leaves: list[queue.Node], room: int, merges: bool = True
    ) -> tuple[queue.Node, ...]:
        every = right_offer(self, leaves, 1 << 30, merges)
        if room <= 0:
            return ()
        return tuple(sorted(every, key=lambda n: n[0] == 0)[:room])

    put(queue.Queue, "_offer", offer)
