"""Which pair is more due (SPEC 3.1).

A pair is named by its older line `(l, i)`, i even; its last message is
`(i+2)*2^l - 1`, so `e = last + 1 = (i+2)*2^l`, and its due is
`(T - last) / 2^l`. Dues are compared without division:

    due_a > due_b  exactly when  (T+1)*2^lb + e_b*2^la > (T+1)*2^la + e_a*2^lb
"""

from __future__ import annotations

from collections.abc import Callable

from model import bits
from model import node as nodes
from model.bits import Bits
from model.node import Node

Order = Callable[[Bits, Node, Node], bool]
"""`order(count, a, b)`: whether pair `a` is strictly more due than pair `b`
when the chat has `count` messages."""


def pair_end(pair: Node) -> Bits:
    """`e`: one past the pair's last message, `(i+2)*2^l` (SPEC 3.1)."""
    return nodes.end(nodes.sibling(pair))


def more_due(count: Bits, a: Node, b: Node) -> bool:
    """Whether pair `a` is strictly more due than pair `b` at T = `count`,
    by the division-free comparison (SPEC 3.1)."""
    count_plus_one = bits.increment(count)
    left = bits.add(bits.shift(count_plus_one, b.level), bits.shift(pair_end(b), a.level))
    right = bits.add(bits.shift(count_plus_one, a.level), bits.shift(pair_end(a), b.level))
    return bits.less(right, left)
