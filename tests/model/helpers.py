"""Shorthands for the model tests: nodes and events by plain integers."""

from __future__ import annotations

import pytest

from model import bits, machine
from model import node as nodes
from model.errors import Refused
from model.events import End, Event, Fail, Start
from model.node import Node


def N(level: int, index: int) -> Node:
    """Node (level, index) with an integer index."""
    return Node(level, bits.from_int(index))


def names(view: tuple[Node, ...]) -> list[str]:
    """The `start+count` names of a view's lines."""
    return [nodes.name(n) for n in view]


def start(level: int, index: int) -> Start:
    return Start(N(level, index))


def end(level: int, index: int, line: str) -> End:
    return End(N(level, index), line)


def fail(level: int, index: int) -> Fail:
    return Fail(N(level, index))


def refused(s: machine.State, event: Event) -> str:
    """The rule `event` breaks in `s` (it must be refused)."""
    with pytest.raises(Refused) as caught:
        machine.step(s, event)
    return caught.value.rule
