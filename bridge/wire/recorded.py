"""An engine's answers to one scenario, kept to be given again: a run that
sends the same lines as an earlier one is answered from memory, and only a
line not sent before reaches the engine (`diagnose` compares one engine
replay with the model under many profiles)."""

from __future__ import annotations

from typing import Any

from bridge.formats.capabilities import CAPABILITIES, ignored_fields
from bridge.wire.engine import Engine, InProcess, Ready
from scenarios.format import Scenario


class Recorded(InProcess):
    """`engine` on one scenario, each line answered once. `sent` holds the
    lines the engine was given since its start, `said` its answers to
    them; a run that leaves them is answered by the engine started again
    and given the run's lines so far (the engine answers lines, so the same
    lines get the same answers)."""

    def __init__(self, engine: Engine, scenario: Scenario) -> None:
        super().__init__()
        self.engine, self.scenario = engine, scenario
        self.name = engine.name
        engine.excused = frozenset(ignored_fields(CAPABILITIES))
        """Each run compares what its capabilities own; the recording keeps any answer."""
        self.sent: list[dict[str, Any]] = []
        self.said: list[dict[str, Any]] = []
        self.ready: Ready | None = None
        self.live = False
        """Whether the engine is started and was given exactly `sent`."""
        self.at = 0
        """How many lines the current run has sent."""
        self.restarts = 0

    def start(self, scenario: Scenario) -> Ready:
        assert scenario is self.scenario, "a recording is of one scenario"
        self.answers.clear()
        self.at = 0
        if self.ready is None:
            self.ready = self.engine.start(scenario)
            self.live = True
        return self.ready

    def fill(self, lines: list[dict[str, Any]]) -> None:
        """Record the engine's answers to `lines` from the start, sent up to
        its window ahead of the answers read (one engine replay, at the
        engine's pace)."""
        self.start(self.scenario)
        if self.sent:
            self._restart(0)
        waiting = 0
        for line in lines:
            self.engine.send(line)
            self.sent.append(line)
            waiting += 1
            if waiting >= self.engine.window:
                self.said.append(self.engine.receive())
                waiting -= 1
        self.said += [self.engine.receive() for _ in range(waiting)]

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        k, self.at = self.at, self.at + 1
        if k < len(self.sent) and self.sent[k] == line:
            return self.said[k]
        if k < len(self.sent) or not self.live:
            self._restart(k)
        self.engine.send(line)
        self.sent.append(line)
        self.said.append(self.engine.receive())
        return self.said[k]

    def _restart(self, k: int) -> None:
        """The engine started again and given the first `k` lines kept."""
        self.restarts += 1
        self.engine.close()
        self.engine.start(self.scenario)
        del self.sent[k:], self.said[k:]
        for line in self.sent:
            self.engine.send(line)
            self.engine.receive()
        self.live = True

    def close(self) -> None:
        """Releases nothing: the recording stays for the next run."""

    def stop(self) -> None:
        """The engine itself closed; the recording is kept."""
        self.engine.close()
        self.live = False
