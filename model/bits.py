"""Natural numbers as bit lists, lowest bit first (SPEC 2).

A `Bits` value is a tuple of 0/1, lowest bit first, with no trailing zero:
zero is `()`, one is `(1,)`, six is `(0, 1, 1)`. Every merge-order number in
the model (message ids, node indices, counts) is one of these; `from_int`
and `to_int` exist for tests, rendering and the scenario format only.
"""

from __future__ import annotations

Bits = tuple[int, ...]

ZERO: Bits = ()
ONE: Bits = (1,)


def canonical(bits: Bits) -> Bits:
    """The same number without trailing zeros (SPEC 2: one spelling per number)."""
    end = len(bits)
    while end and bits[end - 1] == 0:
        end -= 1
    return bits[:end]


def from_int(n: int) -> Bits:
    """The bit list of a natural number (SPEC 2), for tests and rendering."""
    if n < 0:
        raise ValueError(f"bit lists hold natural numbers, not {n}")
    out: list[int] = []
    while n:
        out.append(n & 1)
        n >>= 1
    return tuple(out)


def to_int(bits: Bits) -> int:
    """The natural number a bit list spells (SPEC 2), for tests and rendering."""
    n = 0
    for bit in reversed(bits):
        n = 2 * n + bit
    return n


def is_even(bits: Bits) -> bool:
    """Whether the lowest bit is 0 (SPEC 2: a left child has an even index)."""
    return not bits or bits[0] == 0


def half(bits: Bits) -> Bits:
    """The number with its lowest bit dropped: a node's parent index (SPEC 2)."""
    return bits[1:]


def flip_lowest(bits: Bits) -> Bits:
    """The number with its lowest bit flipped: a node's sibling index (SPEC 2)."""
    if not bits:
        return ONE
    if bits[0] == 0:
        return (1,) + bits[1:]
    return canonical((0,) + bits[1:])


def shift(bits: Bits, k: int) -> Bits:
    """`bits * 2^k` (SPEC 3.1: every power of two in the due order is a shift)."""
    return (0,) * k + bits if bits else ZERO


def unshift(bits: Bits, k: int) -> Bits:
    """`bits // 2^k`: the index of the level-k node holding a message (SPEC 2)."""
    return bits[k:]


def trailing_zeros(bits: Bits) -> int:
    """The largest k with 2^k dividing a positive number (SPEC 3.2: line levels)."""
    k = 0
    while bits[k] == 0:
        k += 1
    return k


def add(a: Bits, b: Bits) -> Bits:
    """`a + b`, bit by bit with a carry (SPEC 3.1)."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    carry = 0
    for k, y in enumerate(b):
        if y or carry:  # else a's bit stands
            total = a[k] + y + carry
            out[k] = total & 1
            carry = total >> 1
    if carry:
        out[len(b) :] = increment(a[len(b) :])
    return tuple(out)


def sub(a: Bits, b: Bits) -> Bits:
    """`a - b` for `a >= b`, bit by bit with a borrow (SPEC 3.2: line lengths)."""
    out: list[int] = []
    borrow = 0
    for k in range(len(a)):
        diff = a[k] - (b[k] if k < len(b) else 0) - borrow
        out.append(diff & 1)
        borrow = 1 if diff < 0 else 0
    if borrow or len(b) > len(a):
        raise ValueError("sub needs a >= b")
    return canonical(tuple(out))


def increment(bits: Bits) -> Bits:
    """`bits + 1`: the lowest 0 becomes 1 and the ones below it 0 (SPEC 1)."""
    k = 0
    while k < len(bits) and bits[k] == 1:
        k += 1
    return (0,) * k + (1,) + bits[k + 1 :]


def compare(a: Bits, b: Bits) -> int:
    """-1, 0 or 1 as `a` is less than, equal to or greater than `b` (SPEC 3.1)."""
    return -1 if less(a, b) else 1 if less(b, a) else 0


def less(a: Bits, b: Bits) -> bool:
    """`a < b` (SPEC 3.1): the shorter list is the smaller number (no
    trailing zeros), and lists of one length compare from their highest bit."""
    return len(a) < len(b) or (len(a) == len(b) and a[::-1] < b[::-1])
