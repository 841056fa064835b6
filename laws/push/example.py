"""The T = 10 example of SPEC 3.2: view 0+4, 4+4, 8+1, 9+1, a budget of 3 lines."""

from __future__ import annotations

from model import bits
from model.due import Order
from model.node import Node
from model.view import fit

VIEW = (
    Node(2, bits.from_int(0)),
    Node(2, bits.from_int(1)),
    Node(0, bits.from_int(8)),
    Node(0, bits.from_int(9)),
)


def merged(order: Order) -> list[tuple[int, int]]:
    """The parents one fit of the example makes under `order`."""
    made = fit(VIEW, bits.from_int(10), lambda _: True, lambda _: 1, 3, order).merges
    return [(n.level, bits.to_int(n.index)) for n in made]
