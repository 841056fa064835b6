"""Push's list at any t, straight from the bijective binary counter (SPEC 3.2),
so a law can start at t = 10^6 without pushing a million times."""

from __future__ import annotations

from model import bits
from model.push import Entry, Stack


def digits(count: int) -> list[int]:
    """The keep bits d_j, newest first, with count = sum (1 + d_j) 2^j."""
    out = []
    while count:
        d = 1 if count % 2 == 0 else 0
        out.append(d)
        count = (count - 1 - d) // 2
    return out


def stack(count: int) -> Stack:
    """Push's list after count pushes: entry j is a line of 2^(j + d_j)
    messages, newest first, its state the first of them."""
    out = []
    end = count
    for j, d in enumerate(digits(count)):
        end -= 2 ** (j + d)
        out.append(Entry(bits.from_int(end), d))
    return tuple(out)
