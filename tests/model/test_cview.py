"""The compaction view and contexts (SPEC 3.4), worked by hand.

Short messages "user: a", "user: b", ... are 7-byte free leaves; two of them
make a 15-byte free parent; two such parents make a 31-byte source, which
with NODE 16 needs a call.
"""

from __future__ import annotations

from model import machine
from model.constants import Constants
from model.events import Message
from tests.model.helpers import N, end, names, start


def messages(s: machine.State, letters: str) -> machine.State:
    for letter in letters:
        s = machine.step(s, Message("user", letter))
    return s


def test_the_compaction_view_keeps_its_own_sawtooth() -> None:
    s = messages(machine.initial(Constants(node=16, cceiling=20, cfloor=10)), "ab")
    assert names(machine.compaction_view(s)) == ["0+1", "1+1"]  # 14 <= 20
    s = messages(s, "c")
    # 21 > 20: merge 0-1 (15 bytes) -> 22 > 10, nothing else mergeable: shrinking.
    assert names(machine.compaction_view(s)) == ["0+2", "2+1"]
    assert s.compaction.shrinking
    s = messages(s, "d")
    # Still shrinking: append 3+1, merge 2-3 -> 0+2, 2+2 (30); (2, 0) needs a call.
    assert names(machine.compaction_view(s)) == ["0+2", "2+2"]
    assert s.compaction.shrinking
    assert names(machine.view(s)) == ["0+1", "1+1", "2+1", "3+1"]  # the chat view: 28 bytes
    # (2, 0) reads the lines up to its last message, 3: both halves.
    assert machine.context(s, N(2, 0)) == (N(1, 0), N(1, 1))
    assert machine.render_context(s, N(2, 0)) == (
        "<chat>\n0+2|user: a user: b\n2+2|user: c user: d\n</chat>"
    )


def test_a_chat_merge_resets_the_compaction_view_to_it_merged_further() -> None:
    s = messages(machine.initial(Constants(node=16, ceiling=30, floor=20, cfloor=10)), "abcd")
    assert machine.compaction_view(s) == machine.view(s)  # 28 bytes, no batch anywhere
    s = messages(s, "e")
    # 35 > 30 at T = 5: pair 0-1 (due 4) then pair 2-3 (due 2) merge: 15+15+7 = 37;
    # pair 0-3 needs a call, so the batch stops above FLOOR.
    assert names(machine.merges(s)) == ["0+2", "2+2"]
    assert names(machine.view(s)) == ["0+2", "2+2", "4+1"]
    assert machine.shrinking(s)
    assert names(machine.compaction_view(s)) == ["0+2", "2+2", "4+1"]
    s = machine.step(s, start(2, 0))
    s = machine.step(s, end(2, 0, "w" * 4))
    s = messages(s, "f")
    # Chat at T = 6: pair 0-3 (due 1.5) before pair 4-5 (due 1): 4+7+7 = 18 <= 20.
    assert names(machine.view(s)) == ["0+4", "4+1", "5+1"]
    assert not machine.shrinking(s)
    # The compaction view is that view merged on down to 10: 4-5 merges (4 + 15 = 19).
    assert names(machine.compaction_view(s)) == ["0+4", "4+2"]
    assert s.compaction.shrinking


def test_a_leaf_context_stops_before_its_message_and_at_the_first_unbuilt_line() -> None:
    s = machine.initial(Constants(node=16))
    s = machine.step(s, Message("user", "a"))
    s = machine.step(s, Message("user", "x" * 20))
    s = machine.step(s, Message("user", "b"))
    s = machine.step(s, Message("user", "y" * 20))
    assert machine.context(s, N(0, 1)) == (N(0, 0),)
    assert machine.context(s, N(0, 3)) == (N(0, 0),)  # 1+1 is not built: stop there
    assert machine.render_context(s, N(0, 0)) == "<chat>\n</chat>"


def test_contexts_rendered_together_are_each_rendered_alone() -> None:
    """render_contexts renders the longest context's lines once and each
    context as a prefix of them: the same text as render_context gives each
    node, a context with no line (a leaf at 0), shorter and longer ones."""
    s = messages(machine.initial(Constants(node=16, cceiling=20, cfloor=10)), "abcdefgh")
    shown = [N(0, 0), N(0, 5), N(2, 0), N(0, 2), N(1, 3), N(3, 0)]
    alone = [machine.render_context(s, node) for node in shown]
    assert alone[0] == "<chat>\n</chat>" and len(set(alone)) > 3
    assert machine.render_contexts(s, shown) == alone
    assert machine.render_contexts(s, []) == []
