"""The line chooser (SPEC 5) on hand-made replies; expected lines worked out by hand."""

from __future__ import annotations

from impl.line import LineChooser
from impl.text import WHITE_SPACE
from model.line import choose_line
from model.profile import Profile

SOURCE = "source text that is long"


def choose(replies: list[str], node: int = 10, tries: int = 5) -> tuple[str, int]:
    """Offer replies until a line is chosen; returns it and how many were read."""
    chooser = LineChooser(SOURCE, node, tries)
    for reply in replies:
        line = chooser.offer(reply)
        if line is not None:
            return line, chooser.read
    raise AssertionError("the chooser wanted more replies than given")


def test_first_fit_is_taken_stripped() -> None:
    assert choose(["  fits  \n"]) == ("fits", 1)
    assert choose(["x" * 10]) == ("x" * 10, 1)


def test_shorter_follow_ups_continue_until_one_fits() -> None:
    assert choose(["a" * 30, "b" * 20, "c" * 12, "ok"]) == ("ok", 4)


def test_a_follow_up_not_shorter_ends_with_the_best_cut() -> None:
    assert choose(["a" * 20, "b" * 25]) == ("a" * 10, 2)
    assert choose(["a" * 20, "b" * 20]) == ("a" * 10, 2)


def test_an_empty_reply_ends_the_tries() -> None:
    assert choose(["a" * 20, "   "]) == ("a" * 10, 2)
    assert choose([""]) == ("source tex", 1)


def test_at_most_tries_replies_then_the_shortest_cut() -> None:
    replies = ["a" * 30, "b" * 29, "c" * 28, "d" * 27, "e" * 26, "fit"]
    assert choose(replies) == ("e" * 10, 5)
    assert choose(replies, tries=2) == ("b" * 10, 2)


def test_the_cut_keeps_whole_characters() -> None:
    # "é" is 2 bytes: 9 bytes hold 4 of them; "中" is 3 bytes: 10 bytes hold 3.
    assert choose(["é" * 8, "é" * 9], node=9) == ("éééé", 2)
    assert choose(["中" * 5, ""]) == ("中中中", 2)


WORD_BREAKS = {
    "\ufeff": {"javascript"},
    "\x85": {"unicode"},
    "\x1c": set(),
    "\x1f": set(),
    "\x0b": {"unicode", "javascript"},
    "\u3000": {"unicode", "javascript"},
    "\t": {"unicode", "javascript", "ascii"},
}
"""Characters where the named sets of white space (SPEC 3.6) disagree, each
with the sets that hold it, from SPEC's definitions by hand: U+FEFF is
ECMAScript's white space alone; U+0085 is Unicode's White_Space but not
ECMAScript's nor ASCII's; U+001C-U+001F are in none, though Python's
`str.isspace` says they are; the vertical tab is not ASCII whitespace."""


def test_a_word_cut_backs_up_only_to_its_trim_set_s_white_space() -> None:
    """Under `cut: word` the chooser backs a too-long reply up to the last
    white space of the profile's `trim_set`, never to a character only
    another set (or Python) holds: for each set, the engine and the model."""
    for char, holding in WORD_BREAKS.items():
        reply = f"abcd{char}efghijklmnopqrstuvwxyz"
        by_characters = reply.encode("utf-8")[:10].decode("utf-8", "ignore")
        for trim_set in ("unicode", "javascript", "ascii"):
            wanted = "abcd" if trim_set in holding else by_characters
            chooser = LineChooser("x", 10, 1, WHITE_SPACE[trim_set], word=True)
            assert chooser.offer(reply) == wanted, (char, trim_set)
            profile = Profile(cut="word", trim_set=trim_set)
            assert choose_line("x", [reply], 10, 1, profile).line == wanted, (char, trim_set)
