"""Lines, sizes, cuts, white space and flattening of text (SPEC 1, 3, 3.6, 5).

All sizes are UTF-8 bytes (SPEC, preamble).
"""

from __future__ import annotations


def _span(first: int, last: int) -> str:
    return "".join(chr(c) for c in range(first, last + 1))


TRIM_SETS = {
    "unicode": _span(0x09, 0x0D) + " \x85\xa0\u1680" + _span(0x2000, 0x200A) + "\u2028\u2029"
    "\u202f\u205f\u3000",
    "javascript": _span(0x09, 0x0D) + " \xa0\u1680" + _span(0x2000, 0x200A) + "\u2028\u2029"
    "\u202f\u205f\u3000\ufeff",
    "ascii": "\t\n\x0c\r ",
}
"""The named sets of white space (SPEC 3.6): Unicode's White_Space property,
ECMAScript's WhiteSpace and LineTerminator (what `String.prototype.trim`
strips), and the WHATWG's ASCII whitespace."""


def size(text: str) -> int:
    """The byte length of `text` in UTF-8 (SPEC, preamble)."""
    return len(text.encode("utf-8"))


def message_line(kind: str, text: str) -> str:
    """A message's line, `kind: text` (SPEC 1)."""
    return f"{kind}: {text}"


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes at a character boundary (SPEC 4, 5)."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def strip(text: str, trim_set: str) -> str:
    """`text` without the white space of the named set at both its ends (SPEC 3.6)."""
    return text.strip(TRIM_SETS[trim_set])


def cut_line(text: str, limit: int, word: bool, ellipsis: str, trim_set: str) -> str:
    """The line chooser's cut (SPEC 5, 10): `text` itself when it is at most
    `limit` bytes; otherwise cut at a character boundary to `limit` less the
    ellipsis's bytes, then (with `word`) without its last white-space
    character and what follows it, when that character is not its first, and
    without the white space it then ends in, unless that leaves nothing; then
    the ellipsis."""
    if size(text) <= limit:
        return text
    head = cut(text, limit - size(ellipsis))
    if word:
        space = TRIM_SETS[trim_set]
        last = max((at for at, char in enumerate(head) if char in space), default=-1)
        shorter = (head[:last] if last > 0 else head).rstrip(space)
        head = shorter or head
    return head + ellipsis


def spaced(text: str) -> str:
    """`text` with each `\\r` and each `\\n` a space, `\\r\\n` two (SPEC 10 `flat_lines`)."""
    return text.replace("\r", " ").replace("\n", " ")


def flat_size(text: str) -> int:
    """`text`'s size once flattened with each run of `\\r` and `\\n` one byte
    (SPEC 10 `flat_sizes`)."""
    breaks = "\r\n"
    runs = sum(
        1 for at, c in enumerate(text) if c in breaks and (at == 0 or text[at - 1] not in breaks)
    )
    return size(text) - sum(1 for c in text if c in breaks) + runs


def flatten(text: str) -> str:
    """`text` with every `\\r\\n`, `\\r` and `\\n` turned into one space (SPEC 3)."""
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
