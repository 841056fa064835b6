"""The line chooser (SPEC 5) on hand-made replies; expected lines worked out by hand."""

from __future__ import annotations

from impl.line import LineChooser

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
