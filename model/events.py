"""The events that move a chat from state to state (SPEC 3.3, 4)."""

from __future__ import annotations

from dataclasses import dataclass

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
    """The call for `node` ends with its chosen line (SPEC 4, 5)."""

    node: Node
    line: str


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


Event = Message | Start | End | Fail | Wait | Settle | Timeout | Retry
