"""Taelin's rollback push, the reference for the merge order (SPEC 3.2)."""

from __future__ import annotations

from dataclasses import dataclass

from model import bits
from model import view as views
from model.bits import Bits
from model.due import Order, more_due
from model.node import Node
from model.view import View


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of push's list: a state (a message id) and its keep bit (SPEC 3.2)."""

    state: Bits
    keep: int


Stack = tuple[Entry, ...]
"""Push's list, newest entry first."""


def push(stack: Stack, state: Bits) -> Stack:
    """Push `state` onto the list (SPEC 3.2): an empty list takes it with keep 0;
    a newest entry with keep 0 gets keep 1 and `state` is dropped; a newest
    entry with keep 1 gives way to `state` (keep 0) and is pushed into the rest."""
    if not stack:
        return (Entry(state, 0),)
    newest, rest = stack[0], stack[1:]
    if newest.keep == 0:
        return (Entry(newest.state, 1),) + rest
    return (Entry(state, 0),) + push(rest, newest.state)


def lines(stack: Stack, count: Bits) -> View:
    """Push's lines, oldest first: each state starts a line running up to the
    next newer state, the newest up to `count` (SPEC 3.2)."""
    out: list[Node] = []
    ends = [count] + [entry.state for entry in stack[:-1]]
    for entry, stop in zip(stack, ends, strict=True):
        length = bits.sub(stop, entry.state)
        level = bits.trailing_zeros(length)
        index = bits.unshift(entry.state, level)
        if length != bits.shift(bits.ONE, level) or bits.shift(index, level) != entry.state:
            raise ValueError("a line of push is not a tree node")
        out.append(Node(level, index))
    return tuple(reversed(out))


def stack_at(t: int) -> Stack:
    """Push's list after pushing the message ids 0 .. t (SPEC 3.2)."""
    stack: Stack = ()
    state = bits.ZERO
    for _ in range(t + 1):
        stack = push(stack, state)
        state = bits.increment(state)
    return stack


def agree_step(view: View, stack: Stack, count: Bits, order: Order = more_due) -> View:
    """One step of push_agrees: append the leaf of message `count - 1`, then
    merge most due pairs, every parent built, until the view has no more
    lines than push's list `stack` (SPEC 3.2)."""
    grown = view + (Node(0, bits.sub(count, bits.ONE)),)
    return views.fit(grown, count, lambda _: True, lambda _: 1, len(stack), order).view
