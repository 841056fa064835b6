"""The events that move a chat from state to state (SPEC 3.3, 3.5, 4)."""

from __future__ import annotations

from dataclasses import dataclass

from model.bits import Bits
from model.node import Node


@dataclass(frozen=True, slots=True)
class Message:
    """A message is logged (SPEC 1, 3.3)."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Start:
    """A compaction call for `node` starts (SPEC 4)."""

    node: Node


@dataclass(frozen=True, slots=True)
class End:
    """The call for `node` ends (SPEC 4, 5): with its chosen `line`, or with
    the `replies` it got, from which the line is chosen (exactly one is given)."""

    node: Node
    line: str | None = None
    replies: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if (self.line is None) == (self.replies is None):
            raise ValueError("an end has either a line or replies")


@dataclass(frozen=True, slots=True)
class Fail:
    """The call for `node` fails (SPEC 4)."""

    node: Node


@dataclass(frozen=True, slots=True)
class Wait:
    """A turn is about to start and waits for a settled view (SPEC 4)."""


@dataclass(frozen=True, slots=True)
class Settle:
    """The waiting turn goes on: every line of the view is built (SPEC 4)."""


@dataclass(frozen=True, slots=True)
class Timeout:
    """The waiting turn goes on after SETTLE_TIMEOUT, settled or not (SPEC 4)."""


@dataclass(frozen=True, slots=True)
class Retry:
    """RETRY has passed: failed nodes may be tried again (SPEC 4)."""


@dataclass(frozen=True, slots=True)
class Zoom:
    """A turn opens `n` messages from `id` (SPEC 3.5); nothing changes."""

    id: Bits
    n: Bits


Event = Message | Start | End | Fail | Wait | Settle | Timeout | Retry | Zoom
