"""Lines, sizes, cuts and white space of text (SPEC 1, 3.6, 5). Sizes are
UTF-8 bytes; the scans of a whole text, its size and its flattening, are in
impl/textscan.py."""

from __future__ import annotations

import re

from impl.errors import Refused
from impl.textscan import utf8_size

_BREAK_RUNS = re.compile("[\r\n]+")


def size(text: str) -> int:
    """The byte length of `text` in UTF-8 (SPEC, preamble); UnicodeEncodeError
    when it has none."""
    found = utf8_size(text)
    return found if found >= 0 else len(text.encode("utf-8"))


def flat_size(text: str) -> int:
    """`text`'s size with each run of `\\r` and `\\n` counted as one byte
    (SPEC 10 `flat_sizes`)."""
    return size(_BREAK_RUNS.sub(" ", text))


_SPACE_SEPARATORS = (
    "\x20\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
)

WHITE_SPACE = {
    "unicode": "\t\n\x0b\x0c\r\x85\u2028\u2029" + _SPACE_SEPARATORS,
    "javascript": "\t\n\x0b\x0c\r\u2028\u2029\ufeff" + _SPACE_SEPARATORS,
    "ascii": "\t\n\x0c\r ",
}
"""The named sets of white space a profile's `trim_set` names (SPEC 3.6):
Unicode's White_Space, what JavaScript's `String.prototype.trim` strips, and
the WHATWG's ASCII whitespace."""


def cut_line(text: str, limit: int, word: bool, ellipsis: str, space: str) -> str:
    """The line chooser's cut (SPEC 5, 10): a text of at most `limit` bytes as
    it is; a longer one cut at a character boundary to `limit` less the
    ellipsis, with `word` back to before its last white-space character (of
    `space`) when that is not the first, and without the white space it then
    ends in unless that leaves nothing; then the ellipsis."""
    if size(text) <= limit:
        return text
    head = cut(text, limit - len(ellipsis.encode("utf-8")))
    if word:
        at = len(head) - 1
        while at > 0 and head[at] not in space:
            at -= 1
        trimmed = (head[:at] if at > 0 else head).rstrip(space)
        if trimmed:
            head = trimmed
    return head + ellipsis


def message_line(kind: str, text: str) -> str:
    """A message's line, `kind: text` (SPEC 1)."""
    return f"{kind}: {text}"


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes at a character boundary (SPEC 4, 5)."""
    # A character is at least a byte, so the first `limit` bytes lie in the
    # first `limit` characters: a long source is not encoded whole.
    return text[:limit].encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def check_utf8(text: str, what: str) -> int:
    """The byte size of `text` in UTF-8; refuse text that has no UTF-8 form,
    e.g. a lone surrogate (rule utf8)."""
    try:
        return size(text)
    except UnicodeEncodeError as error:
        raise Refused("utf8", f"{what} is not valid UTF-8 text: {error.reason}") from None
