"""Push's list and lines (SPEC 3.2), worked by hand, and the bijective counter."""

from __future__ import annotations

import pytest

from model import bits, push
from model.due import more_due
from model.node import Node
from model.view import fit
from tests.model.helpers import N, names

# Worked by hand from the three rules of SPEC 3.2, pushing t after t-1:
# t=2: newest (0, keep 1) gives way to (2, keep 0); 0 is pushed into [] -> (0, 0).
# t=4: (2, 1) gives way to (4, 0); 2 meets (0, 0): 0 gets keep 1 and 2 is dropped.
# t=6: (4, 1) gives way to (6, 0); 4 meets (0, 1): it gives way to (4, 0), 0 -> [].
# t=8: (6, 1) gives way to (8, 0); 6 meets (4, 0): keep 1, 6 dropped.
PUSH_TABLE = {
    0: [(0, 0)],
    1: [(0, 1)],
    2: [(2, 0), (0, 0)],
    3: [(2, 1), (0, 0)],
    4: [(4, 0), (0, 1)],
    5: [(4, 1), (0, 1)],
    6: [(6, 0), (4, 0), (0, 0)],
    7: [(6, 1), (4, 0), (0, 0)],
    8: [(8, 0), (4, 1), (0, 0)],
    9: [(8, 1), (4, 1), (0, 0)],
}

# Each state starts a line running to the next newer state; the newest runs to T = t + 1.
PUSH_LINES = {
    0: ["0+1"],
    1: ["0+2"],
    2: ["0+2", "2+1"],
    3: ["0+2", "2+2"],
    4: ["0+4", "4+1"],
    5: ["0+4", "4+2"],
    6: ["0+4", "4+2", "6+1"],
    7: ["0+4", "4+2", "6+2"],
    8: ["0+4", "4+4", "8+1"],
    9: ["0+4", "4+4", "8+2"],
}


def stacks(last: int) -> list[push.Stack]:
    out: list[push.Stack] = []
    stack: push.Stack = ()
    for t in range(last + 1):
        stack = push.push(stack, bits.from_int(t))
        out.append(stack)
    return out


@pytest.mark.parametrize("t", range(10))
def test_push_table(t: int) -> None:
    stack = stacks(t)[t]
    assert [(bits.to_int(e.state), e.keep) for e in stack] == PUSH_TABLE[t]
    assert push.stack_at(t) == stack


@pytest.mark.parametrize("t", range(10))
def test_push_lines(t: int) -> None:
    assert names(push.lines(stacks(t)[t], bits.from_int(t + 1))) == PUSH_LINES[t]


def test_bijective_counter_identity_up_to_2000() -> None:
    """T = sum (1 + d_j) 2^j, and entry j is a line of level j + d_j (SPEC 3.2)."""
    for t, stack in enumerate(stacks(2000)):
        digits = [entry.keep for entry in stack]
        assert t + 1 == sum((1 + d) * 2**j for j, d in enumerate(digits))
        newest_first = list(reversed(push.lines(stack, bits.from_int(t + 1))))
        assert [line.level for line in newest_first] == [j + d for j, d in enumerate(digits)]


def due_from_first(count: bits.Bits, a: Node, b: Node) -> bool:
    """The classic bug, stated independently: (T - first)/2^l with first = i*2^l."""
    t = bits.to_int(count)
    return (t - bits.to_int(a.index) * 2**a.level) * 2**b.level > (
        t - bits.to_int(b.index) * 2**b.level
    ) * 2**a.level


def test_t10_example_both_ways() -> None:
    # View 0+4, 4+4, 8+1, 9+1 at T = 10 with a budget of 3 lines (SPEC 3.2).
    # Due from last: pair 0-7 is (10 - 7) / 4 = 0.75, pair 8-9 is (10 - 9) / 1 = 1.
    # Due from first: pair 0-7 is (10 - 0) / 4 = 2.5, pair 8-9 is (10 - 8) / 1 = 2.
    view = (N(2, 0), N(2, 1), N(0, 8), N(0, 9))
    ten = bits.from_int(10)
    by_last = fit(view, ten, lambda _: True, lambda _: 1, 3, more_due)
    by_first = fit(view, ten, lambda _: True, lambda _: 1, 3, due_from_first)
    assert names(by_last.view) == ["0+4", "4+4", "8+2"]
    assert names(by_last.merges) == ["8+2"]
    assert names(by_first.view) == ["0+8", "8+1", "9+1"]
    assert names(by_first.merges) == ["0+8"]


def test_agree_step_follows_push_for_the_table() -> None:
    view: tuple[Node, ...] = ()
    for t, stack in enumerate(stacks(9)):
        view = push.agree_step(view, stack, bits.from_int(t + 1))
        assert names(view) == PUSH_LINES[t]
