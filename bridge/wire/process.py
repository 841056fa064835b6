"""A program that speaks the line protocol (bridge/PROTOCOL.md), driven
through its stdin and stdout behind the bridge's one engine interface
(bridge/wire/engine.py)."""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import time
from collections import deque
from json.encoder import c_make_encoder, encode_basestring
from typing import Any

from bridge.formats import capabilities, limits
from bridge.formats.profile import ProfileError, parse
from bridge.wire import observe
from bridge.wire.engine import Engine, EngineFault, Ready
from bridge.wire.stream import DETAIL_REQUEST
from scenarios.format import Scenario, header_line

STARTUP_SECONDS = 60.0
"""How long an engine may take to answer the header: starting a process (and
whatever it loads) is slower than answering an event."""

WINDOW = 64
"""How many lines the bridge writes to a protocol 2 engine ahead of its answers."""

BATCH = 16
"""How many lines the bridge gathers before it writes them, without waiting
for an answer: the engine works on them while the bridge checks answers
already read (written only when an answer is awaited, they left the engine
idle while the bridge worked, and the bridge idle while the engine did)."""

STDERR_KEPT = 1 << 16
"""How much of an engine's stderr the bridge keeps to show: the end of it."""

GRACE = 2.0
"""How long an engine's process group is given to end, after its stdin is
closed and again after SIGTERM, before it is killed."""

POLL = 0.25
"""How often the bridge looks whether the engine's process has exited while
its stdout stays open (a child of it holding the pipe)."""


READY_TYPES: dict[str, type] = {"rule_names": bool, "sessions": bool, "engine": str}
"""The type of each plain field a ready answer may hold (bridge/answer.schema.json,
`answer_to_header`); left out, each has its default. `profile` and
`capabilities` are read by their own parsers."""

READY_WORDS = {bool: "true or false", str: "a string"}


LIMIT_BASE = 1 << 20
"""The longest answer line an engine may give before any event is sent."""


def per_byte(scenario: Scenario) -> int:
    """How much the longest answer may grow per text byte sent: the whole
    state at most (the views, the render, the timed-out render, a zoom and a
    context for each of up to 2 JOBS calls), each byte at most 6 in JSON."""
    return 6 * (4 + 2 * int(scenario.constants.get("jobs", 1)))


def event_bytes(event: dict[str, Any]) -> int:
    """What an event sent adds to the whole state at most: its texts and
    64 bytes (bridge/PROTOCOL.md, "Faults")."""
    return sum(map(text_bytes, (event, *event.get("replies", [])))) + 64


def text_bytes(item: dict[str, Any]) -> int:
    """How many bytes the texts of an event (or a reply) hold, a size counted as its bytes."""
    given = str(item.get("text", "")) + str(item.get("line", ""))
    return int(item.get("size", 0)) + len(given.encode("utf-8", "surrogatepass"))


class ProcessEngine(Engine):
    """Any program speaking the line protocol of bridge/PROTOCOL.md: the
    header, then events and detail requests, one per line on its stdin; one
    answer per line on its stdout. Its stderr is read as it comes and its end
    kept, to show when it fails. A crash, no whole answer within `timeout`
    seconds, a line longer than any answer can be, or a line that is not an
    answer is an EngineFault naming the line it answered. The engine runs in
    a session of its own, and ending it ends every process in its group (a
    wrapper's children too)."""

    window = WINDOW

    def __init__(self, command: str, timeout: float = 10.0) -> None:
        self.command = command
        self.name = command
        self.timeout = timeout
        self.env: dict[str, str] | None = None
        """The engine's environment; None for the runner's own."""
        self.process: subprocess.Popen[bytes] | None = None
        self.ready = Ready()
        self.outgoing = bytearray()
        self.gathered = 0
        """Lines added to `outgoing` since it was last written to."""
        self.answers: deque[bytes] = deque()
        """Whole answer lines read, not yet taken."""
        self.incoming = bytearray()
        """What was read after the last whole line: the start of the next."""
        self.stderr = bytearray()
        self.stderr_bytes = 0
        self.stderr_closed = False
        self.input_closed = False
        """The engine stopped reading its stdin: what it answered before is
        still read, so a crash is reported at the first event unanswered."""
        self.waiting: deque[str] = deque()
        self.limit = LIMIT_BASE
        """The longest answer line the engine may give now: LIMIT_BASE, and
        `per_byte` for each byte of the events sent so far (`event_bytes`),
        every text a state can hold then (bridge/PROTOCOL.md, "Faults");
        the events in `uncounted` are still to be added."""
        self.per_byte = 0
        self.uncounted: list[dict[str, Any]] = []
        """Events sent and not yet counted in `limit`: they are counted only
        when an answer line grows past it, as most never come near."""
        self.faulted = False
        self.ended = False
        """The last line sent was the final detail request."""

    # Starting.

    def _spawn(self) -> None:
        try:
            argv = shlex.split(self.command)
        except ValueError as error:
            raise EngineFault(f"engine command {self.command!r} cannot be split: {error}") from None
        if not argv:
            raise EngineFault("the engine command is empty")
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=self.env,
            )
        except OSError as error:
            why = error.strerror or str(error)
            raise EngineFault(f"engine {argv[0]!r} cannot be started: {why}") from None
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        self.stderr.clear()
        self.stderr_bytes = 0
        self.stderr_closed = False
        self.input_closed = False
        self.faulted = False

    def start(self, scenario: Scenario) -> Ready:
        self.reused = self._finished()
        if not self.reused:
            self.close()
            self._spawn()
        self.answers.clear()
        self.incoming.clear()
        self.outgoing.clear()
        self.gathered = 0
        self.waiting.clear()
        self.limit, self.per_byte = LIMIT_BASE, per_byte(scenario)
        self.uncounted.clear()
        self.ended = False
        try:
            self._write_line(header_line(scenario).encode("utf-8"), "the header")
            answer = self._answer("the header", max(self.timeout, STARTUP_SECONDS))
            self.ready = self._ready(answer)
        except BaseException:
            self.close()
            raise
        return self.ready

    def _finished(self) -> bool:
        """Whether the process can take the next scenario's header: it takes
        sessions, runs, and has not faulted. A replay that stopped before
        its end (at a divergence, or an event the engine does not support)
        is ended first as a scenario ends (bridge/PROTOCOL.md): every answer
        it owes read, then the final detail request. An engine that fails
        to is not taken again."""
        process = self.process
        if process is None or not self.ready.sessions or self.faulted or process.poll() is not None:
            return False
        try:
            if not self.ended:
                self.send(DETAIL_REQUEST)
            while self.waiting:
                self._pump(self.waiting.popleft(), self.timeout, want_line=True)
        except EngineFault:
            return False
        return not self.incoming and not self.answers

    def _ready(self, answer: Any) -> Ready:
        if not isinstance(answer, dict) or "ready" not in answer:
            raise self._fault("the header", f"answered the header with {str(answer)[:200]}")
        if answer["ready"] is False:
            unsupported = answer.get("unsupported")
            if not isinstance(unsupported, dict) or not unsupported:
                raise self._fault(
                    "the header", 'said it is not ready without an "unsupported" object'
                )
            return Ready(
                unsupported={str(k): str(v) for k, v in unsupported.items()},
                constants=self._accepted(answer),
            )
        if answer == {"ready": True}:
            raise self._fault(
                "the header",
                'speaks protocol 1 ({"ready": true}), which this bridge no longer takes: '
                'answer {"ready": true, "protocol": 2} as bridge/PROTOCOL.md says',
            )
        if answer["ready"] is not True or answer.get("protocol") != 2:
            raise self._fault(
                "the header",
                f"answered the header with {str(answer)[:200]}, not "
                '{"ready": true, "protocol": 2, ...}',
            )
        for field, kind in READY_TYPES.items():
            if field in answer and not isinstance(answer[field], kind):
                raise self._fault(
                    "the header",
                    f"answered the header with {field} {json.dumps(answer[field])[:100]}, "
                    f"not {READY_WORDS[kind]} (bridge/PROTOCOL.md)",
                )
        try:
            profile = parse(answer.get("profile", {}), "the profile it declared")
            held = None  # declared none: all
            if "capabilities" in answer:  # null too: not a list
                held = capabilities.parse(answer["capabilities"], "the capabilities it declared")
        except (ProfileError, capabilities.CapabilityError) as error:
            raise self._fault("the header", str(error)) from None
        return Ready(
            profile=profile,
            rule_names=answer.get("rule_names", True),
            sessions=answer.get("sessions", False),
            engine=answer.get("engine", ""),
            capabilities=held,
            constants=self._accepted(answer),
        )

    def _accepted(self, answer: dict[str, Any]) -> limits.Limits | None:
        """The constants an answer to the header declares the engine accepts."""
        if "constants" not in answer:
            return None
        try:
            return limits.parse(answer["constants"], "the constants it declared")
        except limits.LimitsError as error:
            raise self._fault("the header", str(error)) from None

    # Lines out and in.

    def send(self, line: dict[str, Any], wire: bytes | None = None) -> None:
        self.ended = "event" not in line
        if self.ended:
            what = "the final detail request"
        else:
            what = f"event {line['at']} ({line['event']})"
            self.uncounted.append(line)
        self.waiting.append(what)
        self._write_line(wire or dump(line), what)

    def _write_line(self, line: bytes, what: str) -> None:
        self.outgoing += line + b"\n"
        self.gathered += 1
        if len(self.outgoing) > 1 << 20:
            self._pump(what, self.timeout, want_line=False)
        elif self.gathered >= BATCH:
            self._write_some()

    def _write_some(self) -> None:
        """Write what of `outgoing` the engine's stdin takes now, without
        waiting (a broken pipe is met again where an answer is awaited)."""
        assert self.process is not None and self.process.stdin is not None
        try:
            written = os.write(self.process.stdin.fileno(), self.outgoing[: 1 << 16])
        except (BlockingIOError, BrokenPipeError):
            return
        del self.outgoing[:written]
        self.gathered = 0

    def receive(self) -> dict[str, Any]:
        answer = self.receive_unless(None)
        assert answer is not None
        return answer

    def receive_unless(self, expected: bytes | None) -> dict[str, Any] | None:
        what = self.waiting.popleft()
        raw = self._pump(what, self.timeout, want_line=True)
        if expected is not None and raw == expected:
            return None
        answer = self._parse(raw, what)
        fields = observe.BRIEF if what.startswith("event") else observe.DETAIL
        self._check(answer, fields, what)
        if isinstance(answer.get("merges"), list) and answer["merges"]:
            self._check(answer, observe.BATCH, what)
        return answer  # type: ignore[no-any-return]

    def _check(self, answer: Any, fields: tuple[str, ...], what: str) -> None:
        if isinstance(answer, dict) and "unsupported" in answer:
            reason = answer["unsupported"]
            if not isinstance(reason, str) or not reason:
                raise self._fault(
                    what, f"answered unsupported without saying what: {reason!r:.200}"
                )
            return
        missing = [
            f
            for f in fields
            if not isinstance(answer, dict) or (f not in answer and f not in self.excused)
        ]
        if missing:
            raise self._fault(what, f"answered without {', '.join(missing)}: {str(answer)[:200]}")
        refused = answer.get("refused")
        if refused is not None and not isinstance(refused, str | bool):
            raise self._fault(what, f"answered a refusal that is not a rule name: {refused!r}")

    def _answer(self, what: str, timeout: float) -> Any:
        return self._parse(self._pump(what, timeout, want_line=True), what)

    def _parse(self, raw: bytes, what: str) -> Any:
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            raise self._fault(what, f"printed garbage: {raw[:200]!r}") from None

    def _pump(self, what: str, timeout: float, want_line: bool) -> bytes:
        """Write what is pending and read what comes, until a whole answer
        line has arrived (or, without `want_line`, until the pending lines
        are written). Reading stderr all along keeps the engine from
        blocking on it. An answer must be whole within `timeout` seconds of
        being awaited; pending lines must keep being read by the engine."""
        if want_line and self.answers:
            return self.answers.popleft()
        process = self.process
        assert process is not None and process.stdin and process.stdout and process.stderr
        out, inp = process.stdout.fileno(), process.stdin.fileno()
        readers = [out] if self.stderr_closed else [out, process.stderr.fileno()]
        deadline = time.monotonic() + timeout
        while True:
            if want_line:
                if self.answers:
                    return self.answers.popleft()
                if len(self.incoming) > self.limit and self._count_sent():
                    raise self._fault(
                        what, f"printed a line longer than any answer ({self.limit:,} bytes)"
                    )
            elif not self.outgoing:
                return b""
            left = deadline - time.monotonic()
            if left <= 0 and self.input_closed:
                raise self._fault(what, "stopped reading its input (crashed?)", True)
            if left <= 0:
                raise self._fault(what, f"gave no answer within {timeout:g} s")
            writers = [inp] if self.outgoing else []
            readable, writable, _ = select.select(readers, writers, [], min(left, POLL))
            if not readable and not writable and process.poll() is not None:
                raise self._fault(what, "exited, a process it started holding its output", True)
            if writable:
                try:
                    sent = os.write(inp, self.outgoing[: 1 << 16])
                except BrokenPipeError:
                    self.input_closed = True
                    self.outgoing.clear()
                    continue
                del self.outgoing[:sent]
                self.gathered = 0
                if not want_line:
                    deadline = time.monotonic() + timeout
            for fd in readable:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if fd != out:
                    self._keep_stderr(chunk)
                    if not chunk:
                        readers.remove(fd)
                        self.stderr_closed = True
                elif not chunk:
                    raise self._fault(what, "closed its output (crashed?)", True)
                else:
                    self._take(chunk)

    def _take(self, chunk: bytes) -> None:
        """Add what was read from the engine's stdout: its whole lines to
        `answers`, the rest to `incoming`."""
        if b"\n" not in chunk:
            self.incoming += chunk
            return
        *whole, rest = chunk.split(b"\n")
        if self.incoming:
            whole[0] = bytes(self.incoming) + whole[0]
        self.answers.extend(whole)
        self.incoming = bytearray(rest)

    def _count_sent(self) -> bool:
        """Count the events sent into `limit`; whether the answer line read so
        far is still longer than it."""
        self.limit += self.per_byte * sum(map(event_bytes, self.uncounted))
        self.uncounted.clear()
        return len(self.incoming) > self.limit

    def _keep_stderr(self, chunk: bytes) -> None:
        self.stderr_bytes += len(chunk)
        self.stderr += chunk
        if len(self.stderr) > STDERR_KEPT:
            del self.stderr[: len(self.stderr) - STDERR_KEPT]

    def _fault(self, what: str, problem: str, ended: bool = False) -> EngineFault:
        """The fault, with the end of the engine's stderr and its exit code
        (waited for a moment when it `ended` its side of a pipe); the engine
        is not waited for on close."""
        self.faulted = True
        process = self.process
        code: int | None = None
        if process is not None:
            try:
                code = process.wait(timeout=GRACE / 4 if ended else 0)
            except subprocess.TimeoutExpired:
                code = None  # still running: a hang, or garbage from a live engine
            self._drain_stderr()
        state = f" (exit code {code})" if code is not None else ""
        tail = self.stderr.decode("utf-8", "replace")[-2000:]
        more = ""
        if tail.strip():
            size = f"{self.stderr_bytes:,} bytes"
            more = f"\n  its stderr ({size}) ends:\n" + "\n".join(
                "    " + line for line in tail.splitlines()[-20:]
            )
        return EngineFault(f"engine {self.command!r} {problem} at {what}{state}{more}")

    def _drain_stderr(self) -> None:
        process = self.process
        if process is None or process.stderr is None:
            return
        try:
            while chunk := os.read(process.stderr.fileno(), 1 << 16):
                self._keep_stderr(chunk)
        except OSError:
            pass

    def close(self) -> None:
        """Close the engine's stdin and wait for it to exit (not after a
        fault), then end whatever is left of its process group: SIGTERM,
        then SIGKILL after GRACE seconds."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.stdin:
                process.stdin.close()
        except OSError:
            pass
        if not self.faulted:
            try:
                process.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
        end_group(process)
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()


def end_group(process: subprocess.Popen[bytes]) -> None:
    """End every process of the group `process` leads (it leads a session of
    its own): SIGTERM, then SIGKILL to what is left after GRACE seconds; the
    leader waited for."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            break
        until = time.monotonic() + GRACE
        while time.monotonic() < until and group_alive(process):
            time.sleep(0.02)
        if not group_alive(process):
            break
    process.wait()


def group_alive(process: subprocess.Popen[bytes]) -> bool:
    """Whether a process of the group `process` leads is still there (the
    leader is waited for once it has exited, so that it no longer counts)."""
    process.poll()
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    return True


_UTF8 = json.JSONEncoder(ensure_ascii=False)
"""Made once: `json.dumps` with an option makes an encoder at every call,
and a line is dumped for most events sent."""

_UTF8_ONCE = (
    None
    if c_make_encoder is None
    else c_make_encoder(
        None,
        _UTF8.default,
        encode_basestring,
        None,
        _UTF8.key_separator,
        _UTF8.item_separator,
        _UTF8.sort_keys,
        _UTF8.skipkeys,
        _UTF8.allow_nan,
    )
)
"""`_UTF8`'s own C encoder, made once: `_UTF8.encode` makes it again at
every call, a cost as large as encoding a relative event's short line (the
markers are None: a line, made from JSON, cannot hold itself)."""


def dump(line: dict[str, Any]) -> bytes:
    """One protocol line: UTF-8 JSON, with `\\u` escapes only for text that
    has no UTF-8 form (a lone surrogate, refused by rule `utf8`)."""
    try:
        if _UTF8_ONCE is None:
            return _UTF8.encode(line).encode("utf-8")
        return "".join(_UTF8_ONCE(line, 0)).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(line).encode("ascii")
