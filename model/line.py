"""A compaction's line: choosing it from the replies of one conversation (SPEC 5).

Choice made here where SPEC 5 is silent: a reply is taken stripped of the
white space of the profile's `trim_set` (SPEC 3.6; models end replies with
newlines), so a reply of only white space is empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from model import text as texts
from model.profile import Profile


@dataclass(frozen=True, slots=True)
class Choice:
    """The chosen line, or None when the replies fail the call or (`asks`)
    leave it asking for another reply, and how many replies were read to
    choose it (SPEC 5, 10)."""

    line: str | None
    replies: int
    asks: bool = False


def fits(line: str, node_bytes: int, profile: Profile) -> bool:
    """Whether a call's line may be installed (rule `line_fits`): 1 to LINE
    bytes, or under `overlong: kept` 1 byte or more (SPEC 5, 10)."""
    if profile.overlong == "kept":
        return texts.size(line) >= 1
    return 1 <= texts.size(line) <= profile.line_limit(node_bytes)


def over_line(line: str, node_bytes: int, profile: Profile) -> bool:
    """Whether a given line is longer than LINE: what the profile's
    `given_line` then does (SPEC 5, 10)."""
    return texts.size(line) > profile.line_limit(node_bytes)


def cut_best(text: str, node_bytes: int, profile: Profile) -> str:
    """The chooser's cut of its best reply, or of the source: to LINE bytes at
    a character boundary, or back to a word under `cut: word`, then the
    profile's ellipsis (SPEC 5, 10)."""
    return texts.cut_line(
        text,
        profile.line_limit(node_bytes),
        profile.cut == "word",
        profile.ellipsis,
        profile.trim_set,
    )


def choose_line(
    source: str, replies: Sequence[str], node_bytes: int, tries: int, profile: Profile
) -> Choice:
    """Read replies in turn, at most TRIES (SPEC 5): one that fits (1 to LINE
    bytes) is the line (first fit); an empty one ends the tries (under
    `empty_reply: fails` it fails the call: no line); a follow-up not shorter
    than the best so far ends them (under `not_shorter: goes_on` it is passed
    over); otherwise the shortest is kept and another reply asked for. At
    the end the shortest reply is the line whole under `overlong: kept`, and
    otherwise it, or with none the source, is cut (`cut_best`). Replies that
    run out before the tries end end them, or under `replies_out: asks`
    leave the call asking for another (SPEC 10 for the options)."""
    best: str | None = None
    read = 0
    limit = profile.line_limit(node_bytes)
    for raw in replies[:tries]:
        read += 1
        reply = texts.strip(raw, profile.trim_set)
        if not reply:
            if profile.empty_reply == "fails":
                return Choice(None, read)
            break
        if texts.size(reply) <= limit:
            return Choice(reply, read)
        if best is not None and texts.size(reply) >= texts.size(best):
            if profile.not_shorter == "stops":
                break
            continue
        best = reply
    else:
        if read < tries and profile.replies_out == "asks":
            return Choice(None, read, asks=True)
    if best is not None and profile.overlong == "kept":
        return Choice(best, read)
    return Choice(cut_best(source if best is None else best, node_bytes, profile), read)
