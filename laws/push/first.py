"""Due measured from the pair's first message: the classic bug (SPEC 3.1), as
an order the model's fit can run, for the laws that show it is wrong."""

from __future__ import annotations

from model import bits, push
from model.bits import Bits
from model.node import Node


def due_from_first(count: Bits, a: Node, b: Node) -> bool:
    """(T - first_a)/2^la > (T - first_b)/2^lb, first = i*2^l, without division."""
    fa, fb = bits.shift(a.index, a.level), bits.shift(b.index, b.level)
    left = bits.add(bits.shift(count, b.level), bits.shift(fb, a.level))
    right = bits.add(bits.shift(count, a.level), bits.shift(fa, b.level))
    return bits.less(right, left)


def agreements(last_t: int) -> list[bool]:
    """For t = 0..last_t, whether the due-from-first planner (push's length as
    the budget, from the empty view) shows push's lines."""
    view: tuple[Node, ...] = ()
    stack: push.Stack = ()
    out = []
    for t in range(last_t + 1):
        stack = push.push(stack, bits.from_int(t))
        count = bits.from_int(t + 1)
        view = push.agree_step(view, stack, count, due_from_first)
        out.append(view == push.lines(stack, count))
    return out
