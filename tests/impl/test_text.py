"""`check_utf8` with a limit (impl/text.py): the exact UTF-8 size of a text
up to the limit, a size above the limit for a longer one (found without
measuring it), and a lone surrogate refused (rule utf8) whatever the length;
and a message whose long text holds one is refused by the planner."""

from __future__ import annotations

import pytest

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Planner
from impl.text import check_utf8

PIECES = ("a", "é", "€", "😀", "\r\n")
"""One-, two-, three- and four-byte characters and ASCII newlines: the
string kinds CPython stores text in (Latin-1, two- and four-byte)."""


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("length", [0, 1, 8, 15, 16, 17, 32, 40, 200])
@pytest.mark.parametrize("limit", [-1, 0, 16, 64])
def test_size_is_exact_up_to_the_limit_and_above_it_beyond(
    piece: str, length: int, limit: int
) -> None:
    text = ("x" + piece) * length
    exact = len(text.encode("utf-8"))
    got = check_utf8(text, "the text", limit)
    if limit < 0 or exact <= limit:
        assert got == exact
    else:
        assert got > limit


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("length", [1, 16, 200])
@pytest.mark.parametrize("limit", [-1, 0, 16])
@pytest.mark.parametrize("lone", ["\ud800", "\udfff"])
def test_a_lone_surrogate_is_refused_at_any_length(
    piece: str, length: int, limit: int, lone: str
) -> None:
    text = ("x" + piece) * length + lone + piece * length
    with pytest.raises(Refused) as refused:
        check_utf8(text, "the text", limit)
    assert refused.value.rule == "utf8"
    assert "surrogates not allowed" in str(refused.value)


def test_a_message_too_long_to_build_is_still_refused_for_a_lone_surrogate() -> None:
    planner = Planner(Constants(node=64))
    planner.message("user", "é" * 100)
    for piece in ("é", "€", "😀"):
        with pytest.raises(Refused) as refused:
            planner.message("user", piece * 100 + "\ud800")
        assert refused.value.rule == "utf8"
    assert planner.count == 1
    planner.message("user", "😀" * 12)  # 6 + 48 bytes: built at once
    assert planner.text((0, 1)) == "user: " + "😀" * 12
    assert planner.text((0, 0)) is None
