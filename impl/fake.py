"""A deterministic stand-in for the compaction model, for tests and the
example (SPEC 5): it answers a task with the source's words, first too long,
then, after a "too long" follow-up, short enough."""

from __future__ import annotations

from impl.compactor import ruler
from impl.text import cut
from impl.textscan import flatten


class FakeSummarizer:
    """`await fake(conversation)`: the first reply is the source flattened and
    cut to 1.5 NODE bytes (too long for any source that needs a call), each
    follow-up's reply to half NODE. `calls` counts replies."""

    def __init__(self, node_bytes: int) -> None:
        self.node_bytes = node_bytes
        self.calls = 0

    async def __call__(self, conversation: list[dict[str, str]]) -> str:
        self.calls += 1
        source = conversation[0]["content"].split(ruler(self.node_bytes) + "\n")[-1]
        limit = self.node_bytes * 3 // 2 if len(conversation) == 1 else self.node_bytes // 2
        return cut("~ " + flatten(source), limit)
