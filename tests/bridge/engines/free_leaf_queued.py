"""A planted bug for grouping failures into causes (issue 40): a message
whose line fits NODE (a free leaf, built at once, SPEC 2) is not built at
once: it joins the unbuilt leaves and waits for a call like any other.
It shows in the queue, in the views (its line is a placeholder there), in
the starts the engine takes and in zooms. `plant()` puts it into the
engine in this process (with `put`, a test's monkeypatch.setattr)."""

from collections.abc import Callable

from impl import planner


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    """Every leaf waits for a call, free or not."""

    def admit(self: planner.Planner, kind: str, text: str) -> list[tuple[int, int]]:
        self.forget_batch()
        planner.check_message(kind, text, self.profile.kinds)
        if self.profile.retry_at_message:
            self.queue.release()
        leaf = (0, self.count)
        self.tree.log(kind, text)
        self.queue.add_leaf(leaf[1])
        self.chat.append(leaf)
        self.cview.append(leaf)
        return []

    put(planner.Planner, "admit", admit)
