"""Rendering, sizes and free nodes (SPEC 2, 3), with hand-counted bytes."""

from __future__ import annotations

from model import machine, text
from model.constants import PLACEHOLDER, Constants
from model.events import Message
from tests.model.helpers import N, end, start


def test_empty_view_renders_as_two_tags() -> None:
    assert machine.render(machine.initial()) == "<chat>\n</chat>"


def test_placeholder_is_29_bytes() -> None:
    assert text.size(PLACEHOLDER) == 29
    long = machine.step(machine.initial(), Message("user", "x" * 600))
    assert machine.size(long) == 29
    assert machine.render(long) == "<chat>\n0+1|(not summarized yet: zoom it)\n</chat>"


def test_all_three_newline_kinds_flatten_to_one_space_each() -> None:
    s = machine.step(machine.initial(), Message("user", "a\r\nb\rc\nd\n\ne"))
    assert machine.render(s) == "<chat>\n0+1|user: a b c d  e\n</chat>"
    # The size counts the raw text: "user: " 6, then a, CR LF, b, CR, c, LF, d, LF LF, e: 11.
    assert machine.size(s) == 17


def test_multibyte_sizes() -> None:
    assert text.size("é") == 2
    assert text.size("€") == 3
    assert text.size("😀") == 4
    s = machine.step(machine.initial(), Message("note", "é€😀"))
    assert machine.size(s) == len("note: ") + 2 + 3 + 4


def test_cut_keeps_whole_characters() -> None:
    assert text.cut("aé", 2) == "a"
    assert text.cut("aé", 3) == "aé"
    assert text.cut("😀😀", 7) == "😀"
    assert text.cut("abc", 10) == "abc"


def test_a_512_byte_source_is_free_and_513_is_not() -> None:
    # "user: " is 6 bytes, so a 506-byte text makes a 512-byte line.
    free = machine.step(machine.initial(), Message("user", "x" * 506))
    assert machine.text(free, N(0, 0)) == "user: " + "x" * 506
    assert machine.candidates(free) == ()
    paid = machine.step(machine.initial(), Message("user", "x" * 507))
    assert machine.text(paid, N(0, 0)) is None
    assert machine.candidates(paid) == (N(0, 0),)


def test_two_short_lines_join_with_a_newline() -> None:
    s = machine.initial()
    s = machine.step(s, Message("user", "a"))
    s = machine.step(s, Message("unii", "b"))
    assert machine.text(s, N(1, 0)) == "user: a\nunii: b"


def test_a_merge_of_two_long_halves_needs_a_call() -> None:
    c = Constants(node=16)
    s = machine.initial(c)
    s = machine.step(s, Message("user", "x" * 20))
    s = machine.step(s, Message("user", "y" * 20))
    s = machine.step(s, start(0, 0))
    s = machine.step(s, end(0, 0, "a" * 8))
    s = machine.step(s, start(0, 1))
    s = machine.step(s, end(0, 1, "b" * 8))
    # Source "aaaaaaaa\nbbbbbbbb" is 17 bytes > 16: a call, not a free node.
    assert machine.text(s, N(1, 0)) is None
    assert machine.candidates(s) == (N(1, 0),)
    assert machine.source(s, N(1, 0)) == "a" * 8 + "\n" + "b" * 8


def test_timed_out_render_shows_the_message_cut() -> None:
    s = machine.step(machine.initial(Constants(node=16)), Message("user", "é" * 10))
    # "user: " is 6 bytes; 10 more bytes hold 5 whole "é".
    assert machine.render_timed_out(s) == "<chat>\n0+1|user: ééééé\n</chat>"
    assert machine.render(s) == "<chat>\n0+1|(not summarized yet: zoom it)\n</chat>"
