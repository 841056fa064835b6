"""A compaction's line, chosen from the replies of one conversation (SPEC 5).

Choice where SPEC 5 is silent (as in the reference model): a reply is taken
with its surrounding whitespace stripped, so a reply of only whitespace is
empty.
"""

from __future__ import annotations

from impl.text import cut, size


class LineChooser:
    """Reads the replies of one conversation in turn (SPEC 5): `offer` each
    reply; it returns the chosen line once the tries are over, or None when
    a "too long" follow-up should ask for another reply."""

    def __init__(self, source: str, node_bytes: int, tries: int) -> None:
        self.source = source
        self.node_bytes = node_bytes
        self.tries = tries
        self.best: str | None = None
        self.read = 0

    def finish(self) -> str:
        """The shortest reply, or with none the source, cut to NODE bytes."""
        return cut(self.source if self.best is None else self.best, self.node_bytes)

    def offer(self, raw: str) -> str | None:
        """Take one reply: a fit is the line (first fit); an empty reply, a
        follow-up not shorter than the best, or the TRIES-th reply ends the
        tries; otherwise the reply is the best so far and None asks again."""
        self.read += 1
        reply = raw.strip()
        if not reply:
            return self.finish()
        if size(reply) <= self.node_bytes:
            return reply
        if self.best is not None and size(reply) >= size(self.best):
            return self.finish()
        self.best = reply
        return self.finish() if self.read >= self.tries else None
