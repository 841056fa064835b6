"""Lines, sizes and cuts of text (SPEC 1, 5). Sizes are UTF-8 bytes; the
scans of a whole text, its size and its flattening, are in impl/textscan.py."""

from __future__ import annotations

from impl.errors import Refused
from impl.textscan import utf8_size


def size(text: str) -> int:
    """The byte length of `text` in UTF-8 (SPEC, preamble); UnicodeEncodeError
    when it has none."""
    found = utf8_size(text)
    return found if found >= 0 else len(text.encode("utf-8"))


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
