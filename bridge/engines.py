"""Engines the bridge drives, all behind one interface: the model, the engine
in `impl/`, and any program that speaks the line protocol (bridge/PROTOCOL.md).

An observation is a dict with the fields `view`, `size`, `shrinking`,
`merges`, `cview`, `queue`, `queue_waiting` (nodes as `[l, i]` lists), and in
a detailed observation also `render` and `contexts` (a list of `[[l, i],
rendered context]`, one per current candidate, in queue order).
"""

from __future__ import annotations

import json
import os
import select
import shlex
import subprocess
from abc import ABC, abstractmethod
from functools import cache
from typing import Any

from impl import protocol
from impl.constants import Constants as ImplConstants
from impl.errors import Refused as ImplRefused
from impl.planner import Planner
from model import bits, machine
from model.constants import Constants as ModelConstants
from model.errors import Refused as ModelRefused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait
from model.node import Node
from scenarios.format import Scenario, dump, end_line, message_text

STARTUP_SECONDS = 60.0
"""How long an engine may take to answer the header: starting a process (and
whatever it loads) is slower than answering an event."""

BRIEF = ("view", "size", "shrinking", "merges", "cview", "queue", "queue_waiting")
DETAIL = ("render", "contexts")


class EngineFault(Exception):
    """The engine crashed, hung or printed garbage: not a divergence."""


class Engine(ABC):
    """One replay at a time: `start`, then `apply` and `observe` per event."""

    name: str

    @abstractmethod
    def start(self, scenario: Scenario) -> None:
        """Begin a replay with the scenario's constants."""

    @abstractmethod
    def apply(self, event: dict[str, Any], position: int) -> str | None:
        """Apply the event at `position`; the rule named if it was refused."""

    @abstractmethod
    def observe(self, detail: bool) -> dict[str, Any]:
        """What the engine shows now; with `detail`, also render and contexts."""

    def close(self) -> None:  # noqa: B027 (most engines hold nothing to release)
        """Release what the replay holds."""


@cache
def index_of(index: bits.Bits) -> int:
    """A node index as an integer; the bridge asks for the same few thousand
    indices at every event, so it remembers them."""
    return bits.to_int(index)


class ModelEngine(Engine):
    """The oracle: `model.machine`, one immutable state per event."""

    name = "model"

    def start(self, scenario: Scenario) -> None:
        self.state = machine.initial(ModelConstants(**scenario.constants))
        self.refusal = ""

    @staticmethod
    def event(event: dict[str, Any], position: int) -> Event:
        """A scenario event as a model event."""
        node = Node(event["node"][0], bits.from_int(event["node"][1])) if "node" in event else None
        match event["event"]:
            case "message":
                return Message(event["kind"], message_text(event, position))
            case "start":
                return Start(node)  # type: ignore[arg-type]
            case "end":
                return End(node, end_line(event, position))  # type: ignore[arg-type]
            case "fail":
                return Fail(node)  # type: ignore[arg-type]
        return {"wait": Wait(), "settle": Settle(), "timeout": Timeout(), "retry": Retry()}[
            event["event"]
        ]

    def apply(self, event: dict[str, Any], position: int) -> str | None:
        try:
            self.state = machine.step(self.state, self.event(event, position))
        except ModelRefused as refused:
            self.refusal = str(refused)
            return refused.rule
        return None

    def observe(self, detail: bool) -> dict[str, Any]:
        s = self.state

        def pairs(view: tuple[Node, ...]) -> list[list[int]]:
            return [[n.level, index_of(n.index)] for n in view]

        out: dict[str, Any] = {
            "view": pairs(machine.view(s)),
            "size": machine.size(s),
            "shrinking": machine.shrinking(s),
            "merges": pairs(machine.merges(s)),
            "cview": pairs(machine.compaction_view(s)),
            "queue": pairs(machine.candidates(s)),
            "queue_waiting": pairs(machine.candidates_waiting(s)),
        }
        if detail:
            out["render"] = machine.render(s)
            out["contexts"] = [
                [[n.level, index_of(n.index)], machine.render_context(s, n)]
                for n in machine.candidates(s)
            ]
        return out


class ImplEngine(Engine):
    """The production planner of `impl/`, in this process, read and observed
    by the engine's own protocol adapter (`impl.protocol`) without the
    process and the JSON lines."""

    name = "impl"

    def start(self, scenario: Scenario) -> None:
        self.planner = Planner(ImplConstants(**scenario.constants))

    def apply(self, event: dict[str, Any], position: int) -> str | None:
        try:
            protocol.apply(self.planner, event, position)
        except ImplRefused as refused:
            return refused.rule
        return None

    def observe(self, detail: bool) -> dict[str, Any]:
        out = protocol.observation(self.planner)
        if detail:
            out.update(protocol.detail(self.planner))
        return out


class ProcessEngine(Engine):
    """Any program speaking the line protocol of bridge/PROTOCOL.md: the
    header, then events and detail requests, one per line on its stdin; one
    answer per line on its stdout. A crash, a hang past `timeout` seconds, or a line that is not
    an observation is an EngineFault naming the event."""

    def __init__(self, command: str, timeout: float = 10.0) -> None:
        self.command = command
        self.name = command
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.last: dict[str, Any] = {}
        self.what = "the header"
        self.pending = b""

    def start(self, scenario: Scenario) -> None:
        self.close()
        self.process = subprocess.Popen(
            shlex.split(self.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.pending = b""
        header = next(iter(dump(scenario)))
        answer = self._exchange(header, "the header", max(self.timeout, STARTUP_SECONDS))
        if answer != {"ready": True}:
            raise EngineFault(
                f"engine {self.command!r} answered the header with {answer!r}, "
                'not {"ready": true}'
            )

    def _fault(self, what: str, problem: str) -> EngineFault:
        assert self.process is not None
        try:
            code: int | None = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None  # still running: a hang, or garbage from a live engine
        tail = ""
        if code is not None and self.process.stderr is not None:
            tail = self.process.stderr.read().decode("utf-8", "replace")[-1500:]
        state = f" (exit code {code})" if code is not None else ""
        more = f"\n  its stderr ends:\n{tail}" if tail.strip() else ""
        return EngineFault(f"engine {self.command!r} {problem} at {what}{state}{more}")

    def _read_line(self, what: str, timeout: float) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise self._fault(what, f"gave no answer within {timeout:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._fault(what, "closed its output (crashed?)")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def _exchange(self, line: str, what: str, timeout: float | None = None) -> Any:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self._fault(what, "stopped reading its input (crashed?)") from None
        raw = self._read_line(what, self.timeout if timeout is None else timeout)
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._fault(what, f"printed garbage: {raw[:200]!r}") from None

    def _ask(self, line: str, what: str, fields: tuple[str, ...]) -> dict[str, Any]:
        answer = self._exchange(line, what)
        missing = [f for f in fields if not isinstance(answer, dict) or f not in answer]
        if missing:
            raise self._fault(what, f"answered without {', '.join(missing)}: {str(answer)[:200]}")
        return answer  # type: ignore[no-any-return]

    def apply(self, event: dict[str, Any], position: int) -> str | None:
        self.what = f"event {position} ({event['event']})"
        answer = self._ask(json.dumps(event, ensure_ascii=False), self.what, BRIEF)
        refused = answer.get("refused")
        if refused is not None and not isinstance(refused, str):
            raise self._fault(self.what, f"answered a refusal that is not a rule name: {refused!r}")
        self.last = answer
        return refused

    def observe(self, detail: bool) -> dict[str, Any]:
        brief = {f: self.last[f] for f in BRIEF}
        if not detail:
            return brief
        answer = self._ask(json.dumps({"detail": True}), f"the detail after {self.what}", DETAIL)
        return {**brief, **{f: answer[f] for f in DETAIL}}

    def close(self) -> None:
        if self.process is not None:
            if self.process.stdin:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream:
                    stream.close()
            self.process = None


def engine(spec: str, timeout: float = 10.0) -> Engine:
    """`model`, `impl`, or a command line speaking the protocol."""
    if spec == "model":
        return ModelEngine()
    if spec == "impl":
        return ImplEngine()
    return ProcessEngine(spec, timeout)
