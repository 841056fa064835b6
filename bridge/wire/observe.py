"""Answers as the protocol writes them (bridge/PROTOCOL.md): the fields, the
view digest, and the lean answer the model gives, which every conforming
engine must give too.

The digest is restated here from PROTOCOL.md; the engine in `impl/` restates
it on its own (impl/digest.py), so neither side checks the other with its
own code.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from functools import cache
from typing import Any

from model import bits, machine
from model.events import End, Event, Fail, Timeout, Zoom
from model.machine import State
from model.node import Node

BRIEF = (
    "size",
    "shrinking",
    "merges",
    "cmerges",
    "view_digest",
    "cview_digest",
    "queue",
    "queue_waiting",
)
"""What every answer to an event holds."""

BATCH = ("view", "cview", "render_crc", "contexts_crc")
"""What an answer adds after a batch that merged: the whole views, and the
CRC-32 of the render and of each context."""

DETAIL = ("view", "cview", "render", "render_timed_out", "contexts")
"""The whole state, texts in full: the answer to the final detail request."""

OPTIONAL = ("refused", "started", "line", "render_timed_out_crc", "zoom")
"""Fields an answer holds only when they say something."""

ORDER = (
    "refused",
    "started",
    "line",
    "zoom",
    "render_timed_out_crc",
    *BRIEF,
    *BATCH,
    "render",
    "render_timed_out",
    "contexts",
)
"""The order in which a report names the first differing field."""

MASK = 0xFFFFFFFF
MIX = 0x045D9F3B


def line_hash(level: int, index: int) -> int:
    """The 32-bit hash of line `(level, index)` (PROTOCOL.md, "Digests")."""
    x = ((index << 6) + level + 1) & MASK
    x = ((x ^ (x >> 16)) * MIX) & MASK
    x = ((x ^ (x >> 16)) * MIX) & MASK
    return x ^ (x >> 16)


def digest(lines: Iterable[list[int] | tuple[int, int]]) -> int:
    """A view's digest: its lines' hashes summed modulo 2^32 (PROTOCOL.md)."""
    return sum(line_hash(level, index) for level, index in lines) & MASK


def crc(text: str) -> int:
    """The CRC-32 (ISO-HDLC, as zlib) of a text's UTF-8 bytes (PROTOCOL.md)."""
    return zlib.crc32(text.encode("utf-8"))


@cache
def plain(node: Node) -> tuple[int, int]:
    """A model node as `(level, index)`; the bridge asks for the same few
    thousand nodes at every event, so it remembers them."""
    return node.level, bits.to_int(node.index)


@cache
def node_hash(node: Node) -> int:
    return line_hash(*plain(node))


def pairs(nodes: Iterable[Node]) -> list[list[int]]:
    """Nodes as the protocol writes them, `[level, index]`."""
    return [list(plain(n)) for n in nodes]


class ModelAnswers:
    """The model's answers to one replay: what a conforming engine says after
    each event. It keeps the digest of the last view it saw, since a view
    changes only at a message and is asked for at every event."""

    def __init__(self) -> None:
        self._digests: dict[str, tuple[tuple[Node, ...], int]] = {}

    def _digest(self, which: str, view: tuple[Node, ...]) -> int:
        last = self._digests.get(which)
        if last is not None and last[0] is view:
            return last[1]
        if last is not None and len(view) == len(last[0]) + 1 and view[:-1] == last[0]:
            # A message without a batch appends its leaf: the sum gains one hash.
            value = (last[1] + node_hash(view[-1])) & MASK
        else:
            value = sum(node_hash(n) for n in view) & MASK
        self._digests[which] = (view, value)
        return value

    def brief(self, state: State) -> dict[str, Any]:
        return {
            "size": machine.size(state),
            "shrinking": machine.shrinking(state),
            "merges": pairs(machine.merges(state)),
            "cmerges": pairs(machine.compaction_merges(state)),
            "view_digest": self._digest("view", machine.view(state)),
            "cview_digest": self._digest("cview", machine.compaction_view(state)),
            "queue": pairs(machine.candidates(state)),
            "queue_waiting": pairs(machine.candidates_waiting(state)),
        }

    @staticmethod
    def shown(state: State) -> list[Node]:
        """The nodes whose contexts are shown: the queue's and, under `calls:
        self`, the calls the last event started."""
        out = list(machine.candidates(state))
        if state.profile.self_calls:
            out += machine.started(state)
        return out

    def batch(self, state: State) -> dict[str, Any]:
        """The whole views, and the render and contexts as CRCs: after a batch."""
        shown = self.shown(state)
        return {
            "view": pairs(machine.view(state)),
            "cview": pairs(machine.compaction_view(state)),
            "render_crc": crc(machine.render(state)),
            "contexts_crc": [
                [list(plain(n)), crc(text)]
                for n, text in zip(shown, machine.render_contexts(state, shown), strict=True)
            ],
        }

    def detail(self, state: State) -> dict[str, Any]:
        """The whole state, texts in full: the answer to the final detail request."""
        return {
            "view": pairs(machine.view(state)),
            "cview": pairs(machine.compaction_view(state)),
            "render": machine.render(state),
            "render_timed_out": machine.render_timed_out(state),
            "contexts": [
                [list(plain(n)), machine.render_context(state, n)] for n in self.shown(state)
            ],
        }

    def accepted(self, before: State, event: Event, after: State) -> dict[str, Any]:
        """The answer after `event` took `before` to `after`."""
        out = self.brief(after)
        if after.profile.self_calls and after.started:
            out["started"] = pairs(after.started)
        match event:
            case End(node) | Fail(node) if machine.text(before, node) is None:
                line = machine.text(after, node)
                if line is not None:
                    out["line"] = line
            case Timeout():
                out["render_timed_out_crc"] = crc(machine.render_timed_out(after))
            case Zoom(id, n):
                out["zoom"] = machine.zoom(after, id, n)
        if out["merges"]:
            out.update(self.batch(after))
        return out

    def refused(self, state: State, rule: str) -> dict[str, Any]:
        """The answer to a refused event: the unchanged state, and the rule."""
        return {**self.brief(state), "refused": rule}


class Refusals(ModelAnswers):
    """Only what a count of delivery reads (bridge/checking/delivery.py):
    each answer says whether the event was refused, and by which rule; no
    field of the state, no view, render or context."""

    def detail(self, state: State) -> dict[str, Any]:
        return {}

    def accepted(self, before: State, event: Event, after: State) -> dict[str, Any]:
        return {}

    def refused(self, state: State, rule: str) -> dict[str, Any]:
        return {"refused": rule}
