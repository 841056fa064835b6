"""A sawtooth worked by hand (SPEC 3.3, 3.4): a batch stops above FLOOR for
unbuilt parents, the view stays shrinking, and a later message finishes it.

NODE 16, CEILING 50, FLOOR 30; the compaction budgets are so large that the
compaction view is the chat view throughout. "user: " + 20 letters is a
26-byte line: over NODE, so it needs a call and shows the 29-byte placeholder.
"""

from __future__ import annotations

from model import machine
from model.constants import Constants
from model.events import Message
from tests.model.helpers import N, end, names, start

C = Constants(node=16, ceiling=50, floor=30, cceiling=10_000, cfloor=5_000)
LONG = Message("user", "a" * 20)


def test_a_batch_stops_above_floor_then_finishes_at_a_later_message() -> None:
    s = machine.initial(C)
    s = machine.step(s, LONG)  # view 0+1 (29)
    s = machine.step(s, start(0, 0))
    s = machine.step(s, end(0, 0, "x" * 10))  # 0+1 now 10 bytes
    s = machine.step(s, LONG)  # 10 + 29 = 39
    s = machine.step(s, start(0, 1))
    s = machine.step(s, end(0, 1, "y" * 10))
    # (1, 0)'s source is 10 + 1 + 10 = 21 bytes > 16: a ready merge, not free.
    assert machine.candidates(s) == (N(1, 0),)
    s = machine.step(s, LONG)  # 10 + 10 + 29 = 49 <= 50: no batch
    assert not machine.shrinking(s)
    assert machine.size(s) == 49

    s = machine.step(s, LONG)  # 78 > 50: a batch, but no parent is built
    assert names(machine.view(s)) == ["0+1", "1+1", "2+1", "3+1"]
    assert machine.merges(s) == ()
    assert machine.shrinking(s)
    # Queue: unbuilt leaves oldest first, then ready merges.
    assert machine.candidates(s) == (N(0, 2), N(0, 3), N(1, 0))

    s = machine.step(s, start(1, 0))
    s = machine.step(s, end(1, 0, "m" * 12))
    assert names(machine.view(s)) == ["0+1", "1+1", "2+1", "3+1"]  # a build merges nothing

    s = machine.step(s, LONG)  # 10+10+29+29+29 = 107, shrinking: merge 0-1
    assert names(machine.view(s)) == ["0+2", "2+1", "3+1", "4+1"]
    assert names(machine.merges(s)) == ["0+2"]
    assert machine.size(s) == 12 + 29 * 3
    assert machine.shrinking(s)

    for i, line in ((2, "p" * 10), (3, "q" * 10), (4, "r" * 3)):
        s = machine.step(s, start(0, i))
        s = machine.step(s, end(0, i, line))
    # "user: s" (7 bytes) is free; with "rrr" its parent "rrr\nuser: s" (11) is free too.
    s = machine.step(s, Message("user", "s"))
    assert machine.text(s, N(1, 2)) == "rrr\nuser: s"
    # 12+10+10+3+7 = 42, shrinking: only 4-5 is mergeable (1, 1) is unbuilt.
    assert names(machine.view(s)) == ["0+2", "2+1", "3+1", "4+2"]
    assert names(machine.merges(s)) == ["4+2"]
    assert machine.size(s) == 43
    assert machine.shrinking(s)

    s = machine.step(s, start(1, 1))
    s = machine.step(s, end(1, 1, "n" * 5))
    # (2, 0)'s source "m"*12 + "\n" + "n"*5 is 18 bytes: a ready merge.
    assert machine.candidates(s) == (N(2, 0),)
    s = machine.step(s, Message("user", "t"))
    # 12+10+10+11+7 = 50; merge 2-3 -> 12+5+11+7 = 35 > 30; 0-3 is unbuilt.
    assert names(machine.view(s)) == ["0+2", "2+2", "4+2", "6+1"]
    assert machine.size(s) == 35
    assert machine.shrinking(s)

    s = machine.step(s, start(2, 0))
    s = machine.step(s, end(2, 0, "z" * 4))
    s = machine.step(s, Message("user", "u"))
    # "user: t\nuser: u" (15) is free. View 0+2 2+2 4+2 6+1 7+1 = 12+5+11+7+7 = 42.
    # At T = 8 pair 0-3 has due (8 - 3) / 2 = 2.5 and pair 6-7 has due (8 - 7) / 1 = 1:
    # merging 0-3 gives 4+11+7+7 = 29 <= 30, and the view stops shrinking.
    assert names(machine.view(s)) == ["0+4", "4+2", "6+1", "7+1"]
    assert names(machine.merges(s)) == ["0+4"]
    assert machine.size(s) == 29
    assert not machine.shrinking(s)
    assert machine.compaction_view(s) == machine.view(s)


def test_a_message_under_the_ceiling_only_appends() -> None:
    s = machine.initial(C)
    s = machine.step(s, Message("user", "a"))
    s = machine.step(s, Message("user", "b"))
    # (1, 0) is free and built, yet 14 <= 50 bytes: no batch, nothing merges.
    assert machine.text(s, N(1, 0)) == "user: a\nuser: b"
    assert names(machine.view(s)) == ["0+1", "1+1"]
    assert machine.merges(s) == ()
