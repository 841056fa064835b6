"""The view digest of the bridge protocol (bridge/PROTOCOL.md, "Digests"),
restated here: the engine answers it at every event, so every view keeps its
digest up to date as lines come and go instead of summing it each time.

A view's digest is the sum, modulo 2^32, of one 32-bit hash per line. A view
tiles the chat, so its set of lines says everything, and a sum lets a line
be added or taken away in one step.
"""

from __future__ import annotations

from typing import Final

MASK: Final = 0xFFFFFFFF
MIX: Final = 0x045D9F3B


def _mix(x: int) -> int:
    """`(x ^ (x >> 16)) * MIX` modulo 2^32, for `x` below 2^32."""
    x ^= x >> 16
    # Multiplied by halves: the C build multiplies machine integers only
    # while both factors are below 2^30, and goes through Python integers
    # otherwise; `x` may reach 2^32, its 16-bit halves stay below the bound.
    return ((((x >> 16) * MIX & 0xFFFF) << 16) + (x & 0xFFFF) * MIX) & MASK


def line_hash(level: int, index: int) -> int:
    """The 32-bit hash of line `(level, index)` (bridge/PROTOCOL.md)."""
    x = _mix(_mix(((index << 6) + level + 1) & MASK))
    return x ^ (x >> 16)
