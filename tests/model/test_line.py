"""The line chooser (SPEC 5) on hand-made reply lists, NODE = 10, TRIES = 5."""

from __future__ import annotations

from model.line import Choice, choose_line
from model.profile import Profile

SOURCE = "s" * 30


def choose(*replies: str) -> Choice:
    return choose_line(SOURCE, list(replies), node_bytes=10, tries=5, profile=Profile())


def test_first_fit_is_taken_at_once() -> None:
    assert choose("short", "ignored") == Choice("short", 1)
    assert choose("x" * 10) == Choice("x" * 10, 1)


def test_a_fitting_follow_up_is_the_line() -> None:
    assert choose("x" * 20, "y" * 8) == Choice("y" * 8, 2)


def test_a_follow_up_not_shorter_ends_the_tries() -> None:
    assert choose("x" * 20, "y" * 25, "z" * 3) == Choice("x" * 10, 2)
    assert choose("x" * 20, "y" * 20, "z" * 3) == Choice("x" * 10, 2)


def test_the_shortest_reply_is_kept() -> None:
    assert choose("x" * 20, "y" * 15, "z" * 16) == Choice("y" * 10, 3)


def test_an_empty_reply_is_a_try_and_ends_them() -> None:
    assert choose("x" * 20, "", "z") == Choice("x" * 10, 2)
    assert choose("", "z") == Choice("s" * 10, 1)
    assert choose(" \n\t") == Choice("s" * 10, 1)


def test_at_most_tries_replies() -> None:
    replies = ["a" * 20, "b" * 18, "c" * 15, "d" * 13, "e" * 12, "f" * 1]
    assert choose(*replies) == Choice("e" * 10, 5)


def test_no_reply_cuts_the_source() -> None:
    assert choose() == Choice("s" * 10, 0)


def test_the_cut_keeps_whole_characters() -> None:
    # "a" + 8 "é" is 17 bytes; 10 bytes hold "a" and 4 "é" (9 bytes) and half of the fifth.
    assert choose("a" + "é" * 8, "") == Choice("aéééé", 2)


def test_surrounding_whitespace_is_stripped() -> None:
    assert choose("  fits\n") == Choice("fits", 1)
