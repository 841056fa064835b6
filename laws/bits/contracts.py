"""bits_agree as PEP 316 contracts for CrossHair: each function holds when the
bit-list operation equals integer arithmetic on its inputs (SPEC 2)."""

from model import bits
from model import node as nodes
from model.node import Node


def compare_agrees(a: int, b: int) -> bool:
    """
    pre: 0 <= a < 2**20 and 0 <= b < 2**20
    post: __return__
    """
    return bits.compare(bits.from_int(a), bits.from_int(b)) == (a > b) - (a < b)


def add_agrees(a: int, b: int) -> bool:
    """
    pre: 0 <= a < 2**20 and 0 <= b < 2**20
    post: __return__
    """
    return bits.to_int(bits.add(bits.from_int(a), bits.from_int(b))) == a + b


def shift_agrees(a: int, k: int) -> bool:
    """
    pre: 0 <= a < 2**20 and 0 <= k < 20
    post: __return__
    """
    return bits.to_int(bits.shift(bits.from_int(a), k)) == a << k


def parent_agrees(level: int, i: int) -> bool:
    """
    pre: 0 <= level < 20 and 0 <= i < 2**20
    post: __return__
    """
    up = nodes.parent(Node(level, bits.from_int(i)))
    return up.level == level + 1 and bits.to_int(up.index) == i // 2
