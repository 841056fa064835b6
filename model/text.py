"""Lines, sizes, cuts and flattening of text (SPEC 1, 3, 5).

All sizes are UTF-8 bytes (SPEC, preamble).
"""

from __future__ import annotations


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
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
