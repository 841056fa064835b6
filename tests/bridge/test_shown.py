"""FAIL lines show where two values first differ (issue 34): two long texts
are shown from a little before their first differing character to a little
after it, on both sides, so the two never look equal; a list by its first
differing item; every value and event as JSON, the way a scenario file and
an answer write them, with nothing a terminal would act on left raw."""

from __future__ import annotations

import json
import re

from bridge.checking.compare import MISSING, Divergence
from bridge.checking.shown import as_json, difference

PREFIX = "<chat>\n0+1|t é€ 😀 line next more\n1+1|€ " + "chat é€ 😀 line next more " * 11
"""The issue's render: 350 characters alike before they differ."""


def quoted(line: str) -> list[str]:
    """The JSON strings a line shows, decoded."""
    return [json.loads(text) for text in re.findall(r'"(?:[^"\\]|\\.)*"', line)]


def test_two_long_texts_are_shown_where_they_differ_on_both_sides() -> None:
    expected, found = PREFIX + "x: one\n</chat>", PREFIX + "y: one\n</chat>"
    said = difference(expected, found)
    at = len(PREFIX)
    assert f"first at character {at} " in said
    shown_expected, shown_found = quoted(said)
    assert shown_expected != shown_found
    # Each side shows context before the difference and the characters after it.
    assert shown_expected.endswith("x: one\n</chat>") and shown_found.endswith("y: one\n</chat>")
    assert PREFIX.endswith(shown_expected[: shown_expected.index("x: one")])
    assert len(shown_expected) - len("x: one\n</chat>") >= 10
    assert said.count(f"({len(expected)} characters)") == 2


def test_a_text_that_ends_early_shows_its_end_and_what_the_other_goes_on_with() -> None:
    expected, found = PREFIX + "and more after it", PREFIX
    said = difference(expected, found)
    shown_expected, shown_found = quoted(said)
    assert shown_expected.endswith("and more after it")
    assert PREFIX.endswith(shown_found) and shown_found != shown_expected


def test_a_list_is_shown_by_its_first_differing_item() -> None:
    expected = [[1, k] for k in range(40)]
    found = [*expected[:23], [2, 11], *expected[24:]]
    assert difference(expected, found) == (
        "first at item 23 (of 40 items expected, 40 found): expected [1, 23], found [2, 11]"
    )
    assert difference(expected, expected[:39]) == (
        "first at item 39 (of 40 items expected, 39 found): expected [1, 39], "
        "found nothing (its list ends before it)"
    )


def test_within_a_list_a_long_text_is_shown_where_it_differs() -> None:
    contexts = [[[1, 0], PREFIX + "a"], [[1, 1], "b"]]
    other = [[[1, 0], PREFIX + "z"], [[1, 1], "b"]]
    said = difference(contexts, other)
    assert said.startswith("at item 0, item 1 (of 2 items expected, 2 found), first at character")
    assert [text[-1] for text in quoted(said)] == ["a", "z"]


def test_short_values_are_shown_whole_as_json() -> None:
    assert difference(29, 30) == "expected 29, found 30"
    assert difference("jobs_bound", MISSING, missing=MISSING) == (
        'expected "jobs_bound", found (absent)'
    )
    assert difference([[0, 0]], []) == "expected [[0, 0]], found []"
    assert difference(True, False) == "expected true, found false"


def test_nothing_a_terminal_acts_on_is_left_raw() -> None:
    hostile = "a\x1b[2J\x9b31m\u202e\u2028\ud800\x00\r"
    said = difference(hostile, "b")
    assert not any(c in said for c in "\x1b\x9b\u202e\u2028\ud800\x00\r")
    assert quoted(said) == [hostile, "b"]  # still the values, as JSON escapes
    assert as_json("é€😀") == '"é€😀"'  # what a terminal shows is left as it is


def test_an_event_is_said_as_the_json_of_the_file() -> None:
    event = {"event": "zoom", "id": 4, "n": 2, "at": 7}
    found = Divergence(7, 7, event, "zoom", "<chat>\n</chat>", "x")
    assert found.summary().startswith(
        'event 7 (file line 9): {"event": "zoom", "id": 4, "n": 2}: zoom differs, '
        'expected "<chat>\\n</chat>", found "x" (SPEC 3.5)'
    )
    message = {"event": "message", "kind": "user", "text": "long words", "at": 0}
    assert Divergence(0, 0, message, "size", 29, 30).where() == (
        'event 0 (file line 2): {"event": "message", "kind": "user"}'
    )
