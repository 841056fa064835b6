"""An engine's answers to one scenario, kept to be given again: a run that
sends the same lines as an earlier one is answered from memory, and only a
line not sent before reaches the engine (`diagnose` compares one engine
replay with the model under many profiles)."""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from bridge.formats.capabilities import CAPABILITIES, ignored_fields
from bridge.wire.engine import Engine, EngineFault, Ready
from bridge.wire.stream import DETAIL_REQUEST
from scenarios.format import Scenario


class Recorded(Engine):
    """`engine` on one scenario, each line answered once. `sent` holds the
    lines the engine was given since its start, `said` its answers to them
    read so far. A line a run sends where `sent` has it already is answered
    from memory; one after the last of `sent` is passed on, up to the
    engine's window ahead of the answers read, so a run that goes beyond
    what was recorded goes at the engine's pace. A line that leaves `sent`
    is held until its answer is asked for (a run that stops at a divergence
    before it never costs the engine anything); then the engine is started
    again (on the same process when it takes sessions) and given the run's
    lines so far: the engine answers lines, so the same lines get the same
    answers."""

    def __init__(self, engine: Engine, scenario: Scenario) -> None:
        self.engine, self.scenario = engine, scenario
        self.name = engine.name
        self.window = engine.window
        engine.excused = frozenset(ignored_fields(CAPABILITIES))
        """Each run compares what its capabilities own; the recording keeps any answer."""
        self.sent: list[dict[str, Any]] = []
        self.said: list[dict[str, Any] | bytes] = []
        """The answers read, each as a value or as the bytes it was expected as."""
        self.ready: Ready | None = None
        self.live = False
        """Whether the engine is started and was given exactly `sent`."""
        self.at = 0
        """How many lines the current run has sent."""
        self.asked: deque[int] = deque()
        """The places of the lines the current run awaits answers to."""
        self.held: list[tuple[dict[str, Any], bytes | None]] = []
        """The current run's lines from where it left `sent` on, not passed on yet."""
        self.restarts = 0

    def start(self, scenario: Scenario) -> Ready:
        assert scenario is self.scenario, "a recording is of one scenario"
        self.at = 0
        self.asked.clear()
        self.held.clear()
        if self.ready is None:
            self.ready = self.engine.start(scenario)
            self.live = True
        return self.ready

    def send(self, line: dict[str, Any], wire: bytes | None = None) -> None:
        k, self.at = self.at, self.at + 1
        self.asked.append(k)
        if self.held or (k < len(self.sent) and self.sent[k] != line) or not self.live:
            self.held.append((line, wire))
        elif k == len(self.sent):
            self.engine.send(line, wire)
            self.sent.append(line)

    def receive(self) -> dict[str, Any]:
        answer = self.receive_unless(None)
        assert answer is not None
        return answer

    def receive_unless(self, expected: bytes | None) -> dict[str, Any] | None:
        """As the engine's: an answer read from the engine that is exactly
        `expected` is kept as those bytes, and one from memory that is
        exactly the bytes expected then is not parsed either."""
        k = self.asked.popleft()
        if self.held and k >= self.at - len(self.held):
            self._restart(self.at - len(self.held))
            for line, wire in self.held:
                self.engine.send(line, wire)
                self.sent.append(line)
            self.held.clear()
        if k == len(self.said):
            answer = self.engine.receive_unless(expected)
            self.said.append(expected if answer is None else answer)
            return answer
        kept = self.said[k]
        if isinstance(kept, bytes):
            return None if kept == expected else json.loads(kept)
        return kept

    def _restart(self, k: int) -> None:
        """The engine started again and given the first `k` lines kept."""
        self.restarts += 1
        if self.live:
            self._read_owed()
        assert self.ready is not None
        if self.live and self.ready.sessions and not self.ended:
            self.engine.send(DETAIL_REQUEST)
            self.engine.receive()
        elif not (self.live and self.ready.sessions):
            self.engine.close()
        self.engine.start(self.scenario)
        del self.sent[k:], self.said[k:]
        waiting = 0
        for line in self.sent:
            self.engine.send(line)
            waiting += 1
            if waiting >= self.engine.window:
                self.engine.receive()
                waiting -= 1
        for _ in range(waiting):
            self.engine.receive()
        self.live = True

    @property
    def ended(self) -> bool:
        """Whether the engine was given the detail request that ends its
        session (a run asked for its whole state before the scenario's end)."""
        return bool(self.sent) and self.sent[-1] == DETAIL_REQUEST

    def _read_owed(self) -> None:
        """Every answer the engine owes to the lines it was given, kept."""
        while len(self.said) < len(self.sent):
            self.said.append(self.engine.receive())

    def finish(self) -> bool:
        """End the engine's replay as a scenario ends, when it takes
        sessions: every answer it owes read, then the final detail request
        (bridge/PROTOCOL.md); whether it may take another scenario. An
        engine never started may; one that fails here may not."""
        if self.ready is None:
            return True
        if not (self.live and self.ready.sessions):
            return False
        try:
            self._read_owed()
            if not self.ended:
                self.engine.send(DETAIL_REQUEST)
                self.engine.receive()
        except EngineFault:
            return False
        return True

    def close(self) -> None:
        """Releases nothing: the recording stays for the next run."""

    def stop(self) -> None:
        """The engine itself closed; the recording is kept (the answers read)."""
        del self.sent[len(self.said) :]
        self.engine.close()
        self.live = False
