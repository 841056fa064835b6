"""impl/textscan.c, the C build's text scans, held equal to impl/textscan.py
(the reference) and to independent oracles: Python's UTF-8 encoder for sizes,
a regular expression of SPEC 3's rule for flattening; and impl.text.cut to
the cut of a text's whole encoding. Texts of every storage
width a str has (one, two and four bytes a character), lone surrogates and
line breaks included."""

from __future__ import annotations

import importlib.util
import re
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import impl
from impl.text import cut


def module_at(path: Path, name: str) -> ModuleType:
    """The module in file `path`, loaded apart from `impl`'s own."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCE = module_at(impl.HERE / f"{impl.SCANNER}.py", "textscan_reference")
BUILT = impl.BUILD / f"{impl.SCANNER}{EXTENSION_SUFFIXES[0]}"
SCANNERS = [
    pytest.param(REFERENCE, id="python"),
    pytest.param(
        module_at(BUILT, f"impl.{impl.SCANNER}") if BUILT.is_file() else None,
        id="c",
        marks=pytest.mark.skipif(not BUILT.is_file(), reason="no C build here (make engine)"),
    ),
]

characters = st.one_of(
    st.sampled_from("\r\n\r\n x"),
    st.integers(0x80, 0xFF),
    st.integers(0x100, 0xFFFF),
    st.integers(0xD800, 0xDFFF),
    st.integers(0x10000, 0x10FFFF),
).map(lambda c: c if isinstance(c, str) else chr(c))
texts = st.lists(characters, max_size=80).map("".join)


def encoded_size(text: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return -1


def flat(text: str) -> str:
    return re.sub("\r\n|\r|\n", " ", text)


@pytest.mark.parametrize("scanner", SCANNERS)
@given(text=texts)
def test_utf8_size_is_the_encoded_length_or_minus_one(scanner: ModuleType, text: str) -> None:
    assert scanner.utf8_size(text) == encoded_size(text)


@pytest.mark.parametrize("scanner", SCANNERS)
@given(text=texts)
def test_flatten_turns_each_line_break_into_one_space(scanner: ModuleType, text: str) -> None:
    # `==` between strs compares their storage width too: a copy stored
    # wider than its widest character would not be equal.
    assert scanner.flatten(text) == flat(text)


@pytest.mark.parametrize("scanner", SCANNERS)
@pytest.mark.parametrize(
    "text",
    [
        "a" * 200_000,
        "é" * 70_000 + "😀",
        "€" * 70_000 + "a",
        "😀" * 70_000 + "\r\n" * 3,
        "😀" * 70_000 + "\ud800",
        "x" * 70_000 + "é" + "\udfff",
    ],
    ids=["ascii", "latin-1", "two-byte", "four-byte", "surrogate-late", "two-byte-surrogate"],
)
def test_long_texts(scanner: ModuleType, text: str) -> None:
    """Past the C scan's 65,536-character blocks, in every width."""
    assert scanner.utf8_size(text) == encoded_size(text)
    assert scanner.flatten(text) == flat(text)


@pytest.mark.skipif(not impl.COMPILED, reason="the C build is not loaded here")
def test_the_c_build_runs_the_c_scanner() -> None:
    import impl.textscan

    assert impl.textscan.__file__ == str(BUILT)


@given(
    text=st.lists(characters.filter(lambda c: encoded_size(c) > 0), max_size=40).map("".join),
    limit=st.integers(0, 60),
)
def test_cut_is_the_first_bytes_that_hold_whole_characters(text: str, limit: int) -> None:
    """impl.text.cut (SPEC 4, 5), which encodes only the characters it can keep."""
    assert cut(text, limit) == text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
