"""Bit lists against integers (SPEC 2), on every small number and random big ones."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from model import bits
from model import node as nodes
from tests.model.helpers import N

naturals = st.integers(min_value=0, max_value=2**70)


def test_spelling() -> None:
    assert bits.from_int(0) == ()
    assert bits.from_int(6) == (0, 1, 1)
    assert bits.from_int(1) == (1,)
    assert bits.to_int((1, 0, 1)) == 5


# No deadline: a loaded machine is slow, never wrong.
@settings(deadline=None)
@given(naturals, naturals, st.integers(min_value=0, max_value=70))
def test_arithmetic_agrees_with_int(a: int, b: int, k: int) -> None:
    x, y = bits.from_int(a), bits.from_int(b)
    assert bits.to_int(x) == a
    assert bits.add(x, y) == bits.from_int(a + b)
    assert bits.increment(x) == bits.from_int(a + 1)
    assert bits.shift(x, k) == bits.from_int(a << k)
    assert bits.unshift(x, k) == bits.from_int(a >> k)
    assert bits.half(x) == bits.from_int(a // 2)
    assert bits.flip_lowest(x) == bits.from_int(a ^ 1)
    assert bits.is_even(x) == (a % 2 == 0)
    assert bits.compare(x, y) == (a > b) - (a < b)
    assert bits.less(x, y) == (a < b)
    if a >= b:
        assert bits.sub(x, y) == bits.from_int(a - b)
    if a:
        assert bits.trailing_zeros(x) == (a & -a).bit_length() - 1


def test_node_names_and_family() -> None:
    assert nodes.name(N(3, 5)) == "40+8"
    assert nodes.name(N(0, 7)) == "7+1"
    assert nodes.parent(N(2, 5)) == N(3, 2)
    assert nodes.sibling(N(2, 5)) == N(2, 4)
    assert nodes.sibling(N(2, 4)) == N(2, 5)
    assert nodes.halves(N(3, 5)) == (N(2, 10), N(2, 11))
    assert bits.to_int(nodes.first(N(3, 5))) == 40
    assert bits.to_int(nodes.end(N(3, 5))) == 48
