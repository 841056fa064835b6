"""The benchmark workload: realistic message sizes and a compactor that is
never late, the same for every planner measured."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

KINDS = ("user", "unii", "tool", "tool", "unii", "echo", "work", "note")

# Node texts are a few shared strings: the planner is measured, not the
# memory of a million distinct summaries (a real chat keeps them on disk).
LINES = tuple(chr(ord("a") + k) * (200 + 39 * k) for k in range(8))


def messages(count: int, seed: int = 7) -> Iterator[tuple[str, str]]:
    """`count` messages: short user turns, replies, tool calls and outputs
    (lognormal sizes, tool output capped at 30,000 bytes), as (kind, text)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    kinds = rng.integers(0, len(KINDS), size=count)
    sizes = np.minimum(rng.lognormal(mean=5.5, sigma=1.4, size=count).astype(int), 30_000)
    bodies: dict[int, str] = {}
    for k, size in zip(kinds, sizes, strict=True):
        body = bodies.setdefault(int(size), "x" * int(size))
        yield KINDS[int(k)], body


def line_for(level: int, index: int) -> str:
    """The compactor's line for a node: one of the shared LINES."""
    return LINES[(level * 7 + index) % len(LINES)]
