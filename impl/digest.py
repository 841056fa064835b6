"""The view digest of the bridge protocol (bridge/PROTOCOL.md, "Digests"),
restated here: the engine answers it at every event, so every view keeps its
digest up to date as lines come and go instead of summing it each time.

A view's digest is the sum, modulo 2^32, of one 32-bit hash per line. A view
tiles the chat, so its set of lines says everything, and a sum lets a line
be added or taken away in one step.
"""

from __future__ import annotations

MASK = 0xFFFFFFFF
MIX = 0x045D9F3B


def line_hash(level: int, index: int) -> int:
    """The 32-bit hash of line `(level, index)` (bridge/PROTOCOL.md)."""
    x = ((index << 6) + level + 1) & MASK
    x = ((x ^ (x >> 16)) * MIX) & MASK
    x = ((x ^ (x >> 16)) * MIX) & MASK
    return x ^ (x >> 16)
