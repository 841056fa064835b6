"""A compaction's line, chosen from the replies of one conversation (SPEC 5).

Choice where SPEC 5 is silent (as in the reference model): a reply is taken
with its surrounding whitespace stripped, so a reply of only whitespace is
empty.
"""

from __future__ import annotations

from impl.text import cut, size


class EmptyReply(Exception):
    """An empty reply that fails its call (SPEC 10, `empty_reply: fails`)."""


class LineChooser:
    """Reads the replies of one conversation in turn (SPEC 5): `offer` each
    reply; it returns the chosen line once the tries are over, or None when
    a "too long" follow-up should ask for another reply. The profile's
    chooser options (SPEC 10): `empty_fails` (an empty reply raises
    EmptyReply: the call fails) and `goes_on` (a follow-up not shorter than
    the best does not end the tries)."""

    def __init__(
        self,
        source: str,
        node_bytes: int,
        tries: int,
        empty_fails: bool = False,
        goes_on: bool = False,
    ) -> None:
        self.source = source
        self.node_bytes = node_bytes
        self.tries = tries
        self.empty_fails = empty_fails
        self.goes_on = goes_on
        self.best: str | None = None
        self.read = 0

    def finish(self) -> str:
        """The shortest reply, or with none the source, cut to NODE bytes."""
        return cut(self.source if self.best is None else self.best, self.node_bytes)

    def offer(self, raw: str) -> str | None:
        """Take one reply: a fit is the line (first fit); an empty reply
        (unless it fails the call), a follow-up not shorter than the best
        (unless the chooser goes on), or the TRIES-th reply ends the tries;
        otherwise the reply is the best so far and None asks again."""
        self.read += 1
        reply = raw.strip()
        if not reply:
            if self.empty_fails:
                raise EmptyReply("an empty reply fails the call")
            return self.finish()
        if size(reply) <= self.node_bytes:
            return reply
        if self.best is None or size(reply) < size(self.best):
            self.best = reply
        elif not self.goes_on:
            return self.finish()
        return self.finish() if self.read >= self.tries else None
