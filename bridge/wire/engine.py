"""Engines the bridge drives, all behind one interface: the model, the engine
in `impl/`, and any program that speaks the line protocol (bridge/PROTOCOL.md).

An engine is started on a scenario (`start`, which returns what it said to
the header), then is sent lines (`send`: an event as the protocol writes it,
with `at`, or the final detail request) and gives one answer per line, in
order (`receive`), in the lean form of protocol 2 (bridge/wire/observe.py). A
program may be sent several lines before its first answer is read
(`window`); in-process engines answer as they are sent. Engines are made
from a spec by bridge/wire/factory.py.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from typing import Any

from bridge.formats.capabilities import ALL
from bridge.formats.limits import NONE, Limits
from bridge.formats.profile import SPEC, agreement
from model.profile import Profile
from scenarios.format import Scenario


class EngineFault(Exception):
    """The engine crashed, hung, printed garbage or could not start: not a divergence."""


@dataclass(frozen=True)
class Ready:
    """What an engine said to a scenario's header (bridge/PROTOCOL.md)."""

    profile: Profile | None = None
    """The profile the engine declared; None when it declared none."""
    rule_names: bool = True
    sessions: bool = False
    unsupported: dict[str, str] | None = None
    """Why the engine cannot replay the scenario; None when it can."""
    engine: str = ""
    capabilities: frozenset[str] | None = None
    """The optional parts of SPEC the engine declared; None when it declared
    none (bridge/formats/capabilities.py)."""
    constants: Limits | None = None
    """The constants the engine declared it accepts; None when it declared
    none (bridge/formats/limits.py)."""

    def cannot_take(self) -> str:
        """Why the scenario is SKIPPED, in words (for an engine not ready)."""
        said = "; ".join(f"{k}: {v}" for k, v in (self.unsupported or {}).items())
        return f"the engine cannot take it ({said})"


class Engine(ABC):
    """One replay at a time: `start`, then `send` lines and `receive` answers."""

    name: str
    window: int = 1
    excused: frozenset[str] = frozenset()
    """Answer fields the engine may leave out: those of the capabilities it lacks."""
    reused: bool = False
    """Whether the last `start` took the process of the replay before (sessions)."""

    @abstractmethod
    def start(self, scenario: Scenario) -> Ready:
        """Begin a replay of the scenario; what the engine said to its header."""

    @abstractmethod
    def send(self, line: dict[str, Any], wire: bytes | None = None) -> None:
        """Send one line: an event with `at`, or `{"detail": true}` (`wire`:
        the same line as bytes, when they are made already)."""

    @abstractmethod
    def receive(self) -> dict[str, Any]:
        """The answer to the oldest line not answered yet."""

    def receive_unless(self, expected: bytes | None) -> dict[str, Any] | None:
        """The answer to the oldest line not answered yet, or None when it is
        exactly the bytes `expected` (then it need not be read as JSON)."""
        return self.receive()

    def close(self) -> None:  # noqa: B027 (most engines hold nothing to release)
        """Release what the replay holds."""


class InProcess(Engine):
    """An engine in this process: each line is answered as it is sent."""

    def __init__(self) -> None:
        self.answers: deque[dict[str, Any]] = deque()

    @abstractmethod
    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        """The answer to one line."""

    def send(self, line: dict[str, Any], wire: bytes | None = None) -> None:
        self.answers.append(self.answer(line))

    def receive(self) -> dict[str, Any]:
        return self.answers.popleft()


def profile_of(declared: Profile | None, given: Profile | None, name: str) -> Profile:
    """The profile to check an engine under: what it declared, or `--profile`;
    both must agree when both are there."""
    if declared is not None and given is not None and declared != given:
        raise EngineFault(
            f"engine {name!r} declares a profile other than --profile's: "
            f"{agreement(declared)} / {agreement(given)}"
        )
    return declared or given or SPEC


def capabilities_of(
    declared: frozenset[str] | None, given: frozenset[str] | None, name: str
) -> frozenset[str]:
    """The capabilities to check an engine with: what it declared, or
    `--capabilities`; both must agree when both are there; all by default."""
    if declared is not None and given is not None and declared != given:
        said = ", ".join(sorted(declared)) or "none"
        told = ", ".join(sorted(given)) or "none"
        raise EngineFault(
            f"engine {name!r} declares other capabilities than --capabilities gives: "
            f"{said} / {told}"
        )
    if declared is not None:
        return declared
    return ALL if given is None else given


def limits_of(declared: Limits | None, given: Limits | None, name: str) -> Limits:
    """The constants an engine accepts: what it declared, or `--constants`;
    both must agree when both are there; any by default."""
    if declared is not None and given is not None and declared != given:
        raise EngineFault(
            f"engine {name!r} declares other constants than --constants gives: {declared} / {given}"
        )
    return declared or given or NONE
