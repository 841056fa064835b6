"""The two scans of text the planner makes most (SPEC preamble, 3), in their
reference form. The C build replaces this module with impl/textscan.c,
which makes the same scans over the string's own storage without a copy
(see there why); tests/impl/test_textscan.py holds the two equal."""

from __future__ import annotations


def utf8_size(text: str) -> int:
    """The byte length of `text` in UTF-8, or -1 when it has none (a lone surrogate)."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return -1


def flatten(text: str) -> str:
    """`text` with every `\\r\\n`, `\\r` and `\\n` turned into one space (SPEC 3)."""
    if "\r" in text:
        text = text.replace("\r\n", " ").replace("\r", " ")
    return text.replace("\n", " ")
