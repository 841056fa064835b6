"""A compaction's line, chosen from the replies of one conversation (SPEC 5).

Choice where SPEC 5 is silent (as in the reference model): a reply is taken
stripped of the white space of the profile's `trim_set` (SPEC 3.6), so a
reply of only white space is empty.
"""

from __future__ import annotations

from impl.text import WHITE_SPACE, cut_line, size


class EmptyReply(Exception):
    """An empty reply that fails its call (SPEC 10, `empty_reply: fails`)."""


class LineChooser:
    """Reads the replies of one conversation in turn (SPEC 5): `offer` each
    reply; it returns the chosen line once the tries are over, or None when
    a "too long" follow-up should ask for another reply. The profile's
    chooser options (SPEC 10): `limit` (LINE, the bytes a reply fits in:
    NODE, or more under `tolerance`), `space` (the white space of its
    `trim_set`), `empty_fails` (an empty reply raises EmptyReply: the call
    fails), `goes_on` (a follow-up not shorter than the best does not end the
    tries), `word` and `ellipsis` (how the best reply is cut) and `kept`
    (the best reply is not cut at all)."""

    def __init__(
        self,
        source: str,
        limit: int,
        tries: int,
        space: str = WHITE_SPACE["unicode"],
        empty_fails: bool = False,
        goes_on: bool = False,
        word: bool = False,
        ellipsis: str = "",
        kept: bool = False,
    ) -> None:
        self.source = source
        self.limit = limit
        self.tries = tries
        self.space = space
        self.empty_fails = empty_fails
        self.goes_on = goes_on
        self.word = word
        self.ellipsis = ellipsis
        self.kept = kept
        self.best: str | None = None
        self.read = 0

    def finish(self) -> str:
        """The shortest reply (whole under `kept`), or with none the source,
        cut to LINE bytes as the profile cuts."""
        if self.best is not None and self.kept:
            return self.best
        text = self.source if self.best is None else self.best
        return cut_line(text, self.limit, self.word, self.ellipsis, self.space)

    def offer(self, raw: str) -> str | None:
        """Take one reply: a fit is the line (first fit); an empty reply
        (unless it fails the call), a follow-up not shorter than the best
        (unless the chooser goes on), or the TRIES-th reply ends the tries;
        otherwise the reply is the best so far and None asks again."""
        self.read += 1
        reply = raw.strip(self.space)
        if not reply:
            if self.empty_fails:
                raise EmptyReply("an empty reply fails the call")
            return self.finish()
        if size(reply) <= self.limit:
            return reply
        if self.best is None or size(reply) < size(self.best):
            self.best = reply
        elif not self.goes_on:
            return self.finish()
        return self.finish() if self.read >= self.tries else None
