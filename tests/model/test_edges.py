"""Edges the mutation run showed untested (see MUTATION.md): budgets met
exactly, the compaction view's own record, merges reset by other events,
queue room and order, and refusals of impossible inputs. Worked by hand."""

from __future__ import annotations

import pytest

from model import bits, machine, push
from model import tree as trees
from model.constants import Constants
from model.errors import Refused
from model.events import Message, Retry
from model.line import Choice, choose_line
from model.profile import Profile
from tests.model.helpers import N, end, names, start

SHORT = Message("user", "a")  # "user: a", 7 bytes: a free leaf


def run(constants: Constants, *events: object) -> machine.State:
    s = machine.initial(constants)
    for event in events:
        s = machine.step(s, event)  # type: ignore[arg-type]
    return s


def test_a_view_at_exactly_ceiling_is_not_over_it() -> None:
    c = Constants(node=16, ceiling=14, floor=7)
    s = run(c, SHORT, SHORT)  # 7 + 7 = 14 = CEILING: no batch
    assert names(machine.view(s)) == ["0+1", "1+1"]
    assert machine.merges(s) == () and not machine.shrinking(s)
    s = machine.step(s, SHORT)  # 21 > 14: merge 0-1 (15 bytes): 22 > 7, shrinking
    assert names(machine.merges(s)) == ["0+2"]
    assert machine.shrinking(s)


def test_a_batch_ending_at_exactly_floor_stops_shrinking() -> None:
    # NODE 24: "user: " + 20 letters (26 bytes) needs a call; "x"*12 and "y"*12 make a
    # 25-byte source, so (1, 0) needs a call too; "user: " + 15 letters (21) is free.
    c = Constants(node=24, ceiling=70, floor=55, cceiling=1_000, cfloor=50)
    long = Message("user", "a" * 20)
    s = run(c, long, start(0, 0), end(0, 0, "x" * 12), long, start(0, 1), end(0, 1, "y" * 12))
    s = machine.step(s, start(1, 0))
    s = machine.step(s, end(1, 0, "m" * 5))
    s = machine.step(s, Message("user", "b" * 15))  # 12 + 12 + 21 = 45
    s = machine.step(s, long)  # 45 + 29 = 74 > 70: merge 0-1 -> 5 + 21 + 29 = 55 = FLOOR
    assert names(machine.merges(s)) == ["0+2"]
    assert machine.size(s) == 55
    assert not machine.shrinking(s)
    # The chat view merged, so the compaction view is it merged on to CFLOOR 50:
    # no pair of it is mergeable, so it keeps the 55 bytes and is shrinking.
    assert machine.compaction_view(s) == machine.view(s)
    assert s.compaction.merges == ()
    assert s.compaction.size == 55
    assert s.compaction.shrinking


def test_an_event_other_than_a_message_merges_nothing() -> None:
    s = run(Constants(node=16, ceiling=14, floor=7), SHORT, SHORT, SHORT)
    assert machine.merges(s) != ()
    after = machine.step(s, Retry())
    assert machine.merges(after) == ()
    assert after.compaction.merges == ()


def test_an_unknown_event_is_refused() -> None:
    with pytest.raises(Refused) as caught:
        machine.step(machine.initial(), "jump")  # type: ignore[arg-type]
    assert caught.value.rule == "event"


def test_the_queue_offers_only_the_room_jobs_leaves() -> None:
    long = Message("user", "x" * 20)
    s = run(Constants(node=16, jobs=2, ahead=8), long, long, long, start(0, 0))
    assert machine.candidates(s) == (N(0, 1),)


def six_leaves_running() -> machine.State:
    """Six messages of 26 bytes at NODE 16 (none free), each leaf's call started."""
    long = Message("user", "x" * 20)
    s = run(Constants(node=16, jobs=8, ahead=8), *[long] * 6)
    for i in range(6):
        s = machine.step(s, start(0, i))
    return s


def test_ready_merges_queue_by_level_then_index() -> None:
    s = six_leaves_running()
    for i in range(4):
        s = machine.step(s, end(0, i, "ab" * 5))  # two 10-byte halves: a 21-byte source
    s = machine.step(s, start(1, 0))
    s = machine.step(s, end(1, 0, "c" * 10))
    s = machine.step(s, start(1, 1))
    s = machine.step(s, end(1, 1, "d" * 10))  # (2, 0) becomes ready
    for i in (4, 5):
        s = machine.step(s, end(0, i, "ef" * 5))  # (1, 2) becomes ready after (2, 0)
    assert machine.candidates(s) == (N(1, 2), N(2, 0))


def test_ready_merges_of_one_level_keep_their_index_order() -> None:
    s = six_leaves_running()
    for i in range(6):
        s = machine.step(s, end(0, i, "ab" * 5))
    assert machine.candidates(s) == (N(1, 0), N(1, 1), N(1, 2))


def test_a_timed_out_render_shows_built_lines_as_they_are() -> None:
    c = Constants(node=16)
    s = run(c, Message("user", "x" * 20), start(0, 0), end(0, 0, "short"), Message("user", "é" * 9))
    assert machine.render_timed_out(s) == "<chat>\n0+1|short\n1+1|user: ééééé\n</chat>"


def test_a_merge_with_one_unbuilt_half_has_no_source() -> None:
    s = run(Constants(node=16), SHORT, Message("user", "x" * 20))
    with pytest.raises(ValueError, match="0\\+2 has an unbuilt half"):
        trees.source(s.tree, N(1, 0))


def test_subtraction_refuses_a_negative_result() -> None:
    with pytest.raises(ValueError):
        bits.sub(bits.from_int(1), bits.from_int(2))
    with pytest.raises(ValueError):
        bits.sub(bits.from_int(5), bits.from_int(6))


def test_push_lines_refuse_a_list_that_is_no_tree() -> None:
    with pytest.raises(ValueError, match="not a tree node"):
        push.lines((push.Entry(bits.from_int(0), 0),), bits.from_int(3))
    with pytest.raises(ValueError, match="not a tree node"):
        push.lines(
            (push.Entry(bits.from_int(2), 0), push.Entry(bits.from_int(0), 0)), bits.from_int(6)
        )


def test_a_reply_of_exactly_node_bytes_is_a_first_fit() -> None:
    assert choose_line(
        "s" * 30, ["x" * 10, "y"], node_bytes=10, tries=5, profile=Profile()
    ) == Choice("x" * 10, 1)


def test_a_new_chat_is_empty_and_not_shrinking() -> None:
    s = machine.initial()
    assert machine.view(s) == () and machine.size(s) == 0
    assert not machine.shrinking(s) and not s.compaction.shrinking


def test_a_build_shows_no_merges() -> None:
    s = run(Constants(node=16), Message("user", "x" * 20), start(0, 0), end(0, 0, "done"))
    assert machine.merges(s) == () and s.compaction.merges == ()


@pytest.mark.parametrize(
    "bad",
    [
        {"node": 3},
        {"ceiling": 10, "floor": 11},
        {"floor": -1},
        {"cceiling": 10, "cfloor": 11},
        {"jobs": 0},
        {"ahead": 0},
        {"tries": 0},
        {"failures": 0},
    ],
)
def test_impossible_constants_are_refused(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        Constants(**bad)
