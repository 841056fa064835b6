"""Lines, sizes, cuts and flattening of text (SPEC 1, 3, 5). Sizes are UTF-8 bytes."""

from __future__ import annotations

from impl.errors import Refused


def size(text: str) -> int:
    """The byte length of `text` in UTF-8 (SPEC, preamble)."""
    return len(text.encode("utf-8"))


def message_line(kind: str, text: str) -> str:
    """A message's line, `kind: text` (SPEC 1)."""
    return f"{kind}: {text}"


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes at a character boundary (SPEC 4, 5)."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def flatten(text: str) -> str:
    """`text` with every `\\r\\n`, `\\r` and `\\n` turned into one space (SPEC 3)."""
    if "\r" in text:
        text = text.replace("\r\n", " ").replace("\r", " ")
    return text.replace("\n", " ")


def check_utf8(text: str, what: str) -> int:
    """The byte size of `text` in UTF-8; refuse text that has no UTF-8 form,
    e.g. a lone surrogate (rule utf8)."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise Refused("utf8", f"{what} is not valid UTF-8 text: {error.reason}") from None
