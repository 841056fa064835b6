"""A compaction's line: choosing it from the replies of one conversation (SPEC 5).

Choice made here where SPEC 5 is silent: a reply is taken with surrounding
whitespace stripped (models end replies with newlines), so a reply of only
whitespace is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from model import text as texts
from model.profile import Profile


@dataclass(frozen=True, slots=True)
class Choice:
    """The chosen line, or None when the replies fail the call, and how many
    replies were read to choose it (SPEC 5, 10)."""

    line: str | None
    replies: int


def choose_line(
    source: str, replies: Sequence[str], node_bytes: int, tries: int, profile: Profile
) -> Choice:
    """Read replies in turn, at most TRIES (SPEC 5): one of at most NODE bytes
    is the line (first fit); an empty one ends the tries (under `empty_reply:
    fails` it fails the call: no line); a follow-up not shorter than the best
    so far ends them (under `not_shorter: goes_on` it is passed over);
    otherwise the shortest is kept and another reply asked for. At the end
    the shortest reply, or with none the source, is cut to NODE bytes at a
    character boundary (SPEC 10 for the options)."""
    best: str | None = None
    read = 0
    for raw in replies[:tries]:
        read += 1
        reply = raw.strip()
        if not reply:
            if profile.empty_reply == "fails":
                return Choice(None, read)
            break
        if texts.size(reply) <= node_bytes:
            return Choice(reply, read)
        if best is not None and texts.size(reply) >= texts.size(best):
            if profile.not_shorter == "stops":
                break
            continue
        best = reply
    return Choice(texts.cut(source if best is None else best, node_bytes), read)
