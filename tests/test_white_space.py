"""SPEC 3.6's named sets of white space, derived here from their own
definitions (Unicode's White_Space as PropList.txt lists it, checked against
Python's character database; ECMA-262's WhiteSpace and LineTerminator; the
WHATWG's ASCII whitespace), never from the code: every character where two
sets differ, or where Python's `str.strip` (what the model followed before)
differs from SPEC's, is stripped by the model, the engine and the laws'
restatement exactly as its set says. Where `node` is on the machine,
JavaScript's own `String.prototype.trim` is asked too."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata

import pytest

from impl.line import LineChooser
from impl.text import WHITE_SPACE as ENGINE_SETS
from laws.spec import WHITE_SPACE as LAW_SETS
from laws.spec import strip as law_strip
from model import text as texts
from model.line import choose_line
from model.profile import TRIM_SETS, Profile

PROPLIST = [(0x0009, 0x000D), (0x0020, 0x0020), (0x0085, 0x0085), (0x00A0, 0x00A0)]
PROPLIST += [(0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F)]
PROPLIST += [(0x205F, 0x205F), (0x3000, 0x3000)]
"""White_Space in Unicode's PropList.txt (15.1), range by range."""


def ranges(pairs: list[tuple[int, int]]) -> frozenset[str]:
    return frozenset(chr(c) for first, last in pairs for c in range(first, last + 1))


def scan() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """One pass over every code point: the separators by general category
    (Zs, Zl, Zp), and what Python's `str.isspace` holds."""
    separators: dict[str, set[str]] = {"Zs": set(), "Zl": set(), "Zp": set()}
    python = set()
    for char in map(chr, range(sys.maxunicode + 1)):
        separators.get(unicodedata.category(char), set()).add(char)
        if char.isspace():
            python.add(char)
    return {name: frozenset(chars) for name, chars in separators.items()}, frozenset(python)


SEPARATORS, PYTHON = scan()


def category(*names: str) -> frozenset[str]:
    return frozenset().union(*(SEPARATORS[name] for name in names))


UNICODE = ranges(PROPLIST)
JAVASCRIPT = ranges([(0x09, 0x09), (0x0B, 0x0C), (0xFEFF, 0xFEFF)]) | category("Zs")
JAVASCRIPT |= ranges([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])  # LineTerminator
ASCII = ranges([(0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)])
SETS = {"unicode": UNICODE, "javascript": JAVASCRIPT, "ascii": ASCII}

EVERY = UNICODE | JAVASCRIPT | ASCII | PYTHON
DIFFER = sorted(EVERY - (UNICODE & JAVASCRIPT & ASCII & PYTHON))
"""Every character where two of the sets (Python's too) disagree."""


def test_the_sets_are_what_their_standards_list() -> None:
    assert len(UNICODE) == 25 and UNICODE == category("Zs", "Zl", "Zp") | ranges(
        [(0x09, 0x0D), (0x85, 0x85)]
    )
    assert JAVASCRIPT == (UNICODE - {"\x85"}) | {"\ufeff"}
    assert PYTHON - UNICODE == ranges([(0x1C, 0x1F)]) and UNICODE <= PYTHON
    # The characters the issue named: U+001F is white space in no set, U+FEFF in JavaScript's.
    assert "\x1f" in DIFFER and "\ufeff" in DIFFER and "\x0b" in DIFFER and "\x85" in DIFFER
    assert len(DIFFER) == 25


@pytest.mark.parametrize("name", list(SETS))
def test_each_table_of_the_code_is_its_set(name: str) -> None:
    assert TRIM_SETS == tuple(SETS)
    assert frozenset(texts.TRIM_SETS[name]) == SETS[name]
    assert frozenset(ENGINE_SETS[name]) == SETS[name]
    assert LAW_SETS[name] == SETS[name]


@pytest.mark.parametrize("name", list(SETS))
def test_every_differing_character_is_stripped_as_its_set_says(name: str) -> None:
    profile = Profile(trim_set=name)
    for char in [*DIFFER, "\u200b", "\u180e", "x"]:
        reply = f"{char}ok{char}"
        expected = "ok" if char in SETS[name] else reply
        said = f"U+{ord(char):04X} under {name}"
        assert texts.strip(reply, name) == expected, said
        assert choose_line("s" * 99, [reply], 64, 1, profile).line == expected, said
        assert LineChooser("s" * 99, 64, 1, ENGINE_SETS[name]).offer(reply) == expected, said
        assert law_strip(reply, profile) == expected, said


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to ask")
def test_javascript_s_own_trim_agrees() -> None:
    script = "const c = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
    script += "console.log(JSON.stringify(c.map((x) => ('a' + x).trim() === 'a')));"
    chars = [*DIFFER, "\u200b", "\u180e"]
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(chars), capture_output=True, text=True, check=True
    )
    trimmed = json.loads(done.stdout)
    assert {c for c, t in zip(chars, trimmed, strict=True) if t} == JAVASCRIPT & set(chars)
