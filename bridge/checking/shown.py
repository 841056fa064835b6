"""Values as the runner's lines and reports show them: as JSON, the way a
scenario file and an answer write them (never a Python repr), with every
character a terminal would act on written as its `\\u` escape; and two
values that differ shown by where they first differ: the first differing
item of a list, the first differing character of a text, with context on
both sides, so that two long values are never cut at the same prefix and
look equal."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

ABSENT = "(absent)"
"""How a field one side left out is shown."""


def escaped(character: str) -> str:
    """A character as JSON's `\\u` escape (two for one beyond the BMP)."""
    code = ord(character)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe(text: str) -> str:
    """JSON text with each character that is not printable (C0 and C1
    controls, DEL, line and paragraph separators, bidirectional controls,
    lone surrogates, unassigned code points) as its escape: still JSON, and
    nothing in it moves a terminal's cursor or reorders what it shows."""
    return "".join(c if c.isprintable() or c == " " else escaped(c) for c in text)


def as_json(value: Any) -> str:
    """A value as one line of JSON, safe for a terminal (`safe`)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return safe(repr(value))
    return safe(text)


def clipped(value: Any, limit: int) -> str:
    """`as_json(value)`, cut after `limit` characters, saying how long it was."""
    text = as_json(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Difference:
    """Where two values first differ: the items that lead to it (list
    indices, dictionary keys), and the two values there."""

    path: tuple[int | str, ...]
    expected: Any
    found: Any


def first_difference(expected: Any, found: Any, missing: Any = None, whole: int = 0) -> Difference:
    """Where `expected` and `found` first differ, going into lists item by
    item and dictionaries key by key while both sides are one, and while
    they are longer than `whole` characters of JSON (an item that short is
    shown whole); `missing` stands for what one side lacks (an item past
    its end, a key it has not)."""
    path: list[int | str] = []
    while len(as_json(expected)) > whole or len(as_json(found)) > whole or not path:
        if isinstance(expected, list) and isinstance(found, list):
            pairs = zip(expected, found, strict=False)
            short = min(len(expected), len(found))
            index = next((k for k, (a, b) in enumerate(pairs) if a != b), short)
            if index == short and len(expected) == len(found):
                break
            path.append(index)
            expected = expected[index] if index < len(expected) else missing
            found = found[index] if index < len(found) else missing
        elif isinstance(expected, dict) and isinstance(found, dict):
            keys = sorted(set(expected) | set(found), key=str)
            key = next((k for k in keys if expected.get(k, missing) != found.get(k, missing)), None)
            if key is None:
                break
            path.append(key)
            expected, found = expected.get(key, missing), found.get(key, missing)
        else:
            break
        if expected is missing or found is missing:
            break
    return Difference(tuple(path), expected, found)


def first_character(a: str, b: str) -> int:
    """The index of the first character where two texts differ (the shorter's
    length when one begins the other)."""
    return next(
        (k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def around(text: str, at: int, before: int, after: int) -> str:
    """The part of `text` from `before` characters before index `at` to
    `after` characters from it, as JSON, `...` marking what was cut."""
    begin, end = max(0, at - before), min(len(text), at + after)
    shown = as_json(text[begin:end])
    head = "..." if begin else ""
    tail = "..." if end < len(text) else ""
    return f"{head}{shown}{tail}"


def texts(expected: str, found: str, limit: int) -> str:
    """Two texts that differ: whole when both are short, else from a little
    before their first differing character to a little after it on each
    side, with where that is (character, line and column) and both lengths."""
    if len(as_json(expected)) <= limit and len(as_json(found)) <= limit:
        return f"expected {as_json(expected)}, found {as_json(found)}"
    at = first_character(expected, found)
    line = expected.count("\n", 0, at) + 1
    column = at - (expected.rfind("\n", 0, at) + 1) + 1
    window = max(24, limit // 2)
    before = min(at, window // 3)
    return (
        f"first at character {at} (line {line}, column {column}): "
        f"expected {around(expected, at, before, window - before)} ({len(expected)} characters), "
        f"found {around(found, at, before, window - before)} ({len(found)} characters)"
    )


def place(path: tuple[int | str, ...]) -> str:
    """Where in a value a difference is, in words: `item 3`, `item 3, key "x"`."""
    return ", ".join(f"item {p}" if isinstance(p, int) else f"key {as_json(p)}" for p in path)


def difference(expected: Any, found: Any, limit: int = 80, missing: Any = None) -> str:
    """Two differing values in words: whole when both are short, else the
    first differing item of a list (and, within it, of its own lists or
    text), with each side's length; `missing` is the value that stands for
    a field one side left out."""
    if expected is missing or found is missing:
        a = ABSENT if expected is missing else clipped(expected, limit)
        b = ABSENT if found is missing else clipped(found, limit)
        return f"expected {a}, found {b}"
    if isinstance(expected, str) and isinstance(found, str):
        return texts(expected, found, limit)
    if len(as_json(expected)) <= limit and len(as_json(found)) <= limit:
        return f"expected {as_json(expected)}, found {as_json(found)}"
    gap = object()
    where = first_difference(expected, found, gap, limit // 2)
    sizes = ""
    if isinstance(expected, list) and isinstance(found, list):
        sizes = f" (of {len(expected)} items expected, {len(found)} found)"
    a, b = where.expected, where.found
    if not where.path:
        return f"expected {clipped(a, limit)}, found {clipped(b, limit)}"
    if isinstance(a, str) and isinstance(b, str):
        return f"at {place(where.path)}{sizes}, {texts(a, b, limit)}"
    ended = "nothing (its list ends before it)" if isinstance(where.path[-1], int) else ABSENT
    a_said = ended if a is gap else clipped(a, limit)
    b_said = ended if b is gap else clipped(b, limit)
    return f"first at {place(where.path)}{sizes}: expected {a_said}, found {b_said}"
