"""What the bridge sends an engine, and what it expects back (bridge/PROTOCOL.md).

An exchange is one line sent (an event as the protocol writes it, with its
position `at`, or the final detail request) and the answer a conforming
engine gives. The exchanges of a scenario come from its committed
transcript, or from the model replaying it under the engine's profile
(`exchanges` chooses).

An event relative to the state (version 3: the k-th candidate, the k-th
running call, a settle or timeout, a message of a kind the profile takes)
is resolved against the model under the engine's profile and sent as the
absolute event it stands for. With no candidate (no call
running) it waits, and is sent as soon as an event sent makes one (in the
scenario's order); one still waiting at the end is never sent
(scenarios/README.md, "Relative events").

Under `calls: self` (SPEC 10) the scenario's `start` events are not sent:
the engine starts its own calls. An outcome (`end`, `fail`) naming a call
that is not running is held, and sent right after the engine starts that
call; held outcomes go in the scenario's order. An outcome the scenario
marks refused because its call does not run (`end_needs_running`,
`fail_needs_running`) is the opposite: it is sent where it stands when its
call does not run there, and otherwise held until that call no longer runs
(it ended or failed), so that the rule it exists for is checked
(bridge/checking/purpose.py).

For an engine that lacks a capability (bridge/formats/capabilities.py) the
events it cannot take are not sent, to the engine nor to the model, and an
`end` with replies is sent with the line the model chose; the exchange still
says so, for the count of what was not compared. A relative event is
resolved first: a settle that stands for a timeout is not sent to an engine
without `settle_timeout`.
"""

from __future__ import annotations

import json
import shlex
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from bridge.formats import transcript
from bridge.formats.capabilities import Capability, gives_lines, withheld
from bridge.formats.invocation import clone, command
from bridge.formats.layout import expected_path
from bridge.formats.profile import SPEC
from bridge.wire.inprocess import ModelEngine, model_event
from model import bits, machine
from model import queue as queues
from model.constants import KINDS
from model.events import End
from model.line import choose_line
from model.node import Node
from model.profile import Profile
from scenarios.format import RELATIVE, Scenario, ScenarioError, is_relative

DETAIL_REQUEST: dict[str, Any] = {"detail": True}

IDLE = frozenset({"end_needs_running", "fail_needs_running"})
"""The refusals of an outcome whose call does not run (SPEC 4.1): under
`calls: self` such a marked outcome is sent when its call does not run."""


@dataclass
class Exchange:
    """One line the bridge sends, and the answer it expects: as a value, or
    as the bytes a transcript holds (parsed only when an answer differs from
    them; bridge/PROTOCOL.md asks nothing of an engine's spacing or key
    order, but an engine that writes the transcript's bytes is compared
    without parsing at all)."""

    line: dict[str, Any]
    position: int | None
    """The event's position in the scenario; None for the final detail request."""
    parsed: dict[str, Any] | None = None
    answer: bytes | None = None
    """The expected answer as compact JSON, when a transcript gave it."""
    wire: bytes | None = None
    """The line as sent, when the scenario file gave it ready."""
    lacking: str | None = None
    """The capability the engine lacks that changed this exchange."""
    sent: bool = True
    """False for an event not sent because of `lacking`: nothing is compared."""

    @property
    def expected(self) -> dict[str, Any]:
        if self.parsed is None:
            self.parsed = json.loads(self.answer or b"{}")
        return self.parsed

    @property
    def refused(self) -> bool:
        """Whether the expected answer is a refusal (SPEC 4.1), read without
        parsing a transcript's bytes: `"refused":` is only ever a key there."""
        if self.parsed is not None or self.answer is None:
            return "refused" in self.expected
        return b'"refused":' in self.answer


def wire(
    event: dict[str, Any], position: int, sent: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An event as the protocol sends it: without the scenario's expected
    refusal, with its position; a relative event with its relative field
    replaced by what was `sent` for it."""
    dropped = RELATIVE[event["event"]] if sent is not None else "refused"
    line = {k: v for k, v in event.items() if k != "refused" and k != dropped}
    if sent is not None:
        line.update(sent)
    line["at"] = position
    return line


def wire_bytes(scenario: Scenario, position: int) -> bytes | None:
    """The event's line as sent, from its text in the file: the object with
    `,"at":position` added (None when the event carries a refusal mark, which
    is not sent, or the scenario was not read from a file, or its line holds
    a carriage return between tokens: JSON allows it there, but an engine
    reading lines with universal newlines would split the line at it)."""
    event = scenario.events[position]
    if "refused" in event or is_relative(event):
        return None
    text = scenario.text(position)
    if text is None:
        return None
    text = text.rstrip()
    if "\r" in text:
        return None
    return f'{text[:-1]},"at":{position}}}'.encode()


UNSENT: dict[str, Any] = {}
"""What a relative settle or timeout stands for when no turn waits: nothing
to send (the turn it would end went on already: under SPEC 10 `resume:
self`, by itself). Told apart by identity."""


def resolved(event: dict[str, Any], state: machine.State) -> dict[str, Any] | None:
    """The absolute event a relative one stands for in `state` (the k-th
    candidate in queue order, the k-th running call oldest first, k modulo
    their number; a timeout for a settle while the view is unsettled; a
    message of the taken kind at its kind's place in KINDS modulo the number
    taken, when the profile does not take its own; `UNSENT` for a settle or
    a timeout when no turn waits), or None when there is no such call; any
    other event as it is."""
    if not is_relative(event):
        return event
    if event["event"] == "message":
        kind, taken = event["kind"], state.profile.kinds
        if kind not in taken and kind in KINDS:
            kind = taken[KINDS.index(kind) % len(taken)]
        return {**{k: v for k, v in event.items() if k != "untaken"}, "kind": kind}
    if event["event"] in ("settle", "timeout"):
        if not state.queue.waiting:
            return UNSENT
        unsettled = event["event"] == "timeout" or not machine.settled(state)
        return {"event": "timeout" if unsettled else "settle"}
    field = RELATIVE[event["event"]]
    calls = machine.candidates(state) if event["event"] == "start" else state.queue.running
    if not calls:
        return None
    node = calls[event[field] % len(calls)]
    named = [node.level, bits.to_int(node.index)]
    return {("node" if k == field else k): (named if k == field else v) for k, v in event.items()}


def _running(model: ModelEngine, event: dict[str, Any]) -> bool:
    level, index = event["node"]
    return Node(level, bits.from_int(index)) in model.state.queue.running


def given_line(model: ModelEngine, line: dict[str, Any]) -> dict[str, Any] | None:
    """An `end` with replies as an `end` with the line the model chooses from
    them (SPEC 5); None when its call does not run (it is refused either
    way); `line` itself when the call asks for another reply (SPEC 10
    `replies_out: asks`): the model reads the replies, and the engine, which
    does not choose, is sent nothing: its call goes on running too."""
    if not _running(model, line):
        return None
    event = model_event(line, line["at"])
    assert isinstance(event, End) and event.replies is not None
    c = model.state.constants
    source = machine.source(model.state, event.node)
    read = queues.conversation(model.state.queue, event.node) + event.replies
    chosen = choose_line(source, read, c.node, c.tries, model.state.profile)
    if chosen.asks:
        return line
    if chosen.line is None:  # `empty_reply: fails` (SPEC 10): the call failed
        return {"event": "fail", "node": line["node"], "at": line["at"]}
    return {"event": "end", "node": line["node"], "line": chosen.line, "at": line["at"]}


@dataclass(frozen=True)
class Paused:
    """Where a replay of `from_model` stood just after an exchange it sent:
    the scenario's position it goes on from, the model's state (immutable),
    and the events it holds back for later. A replay resumed from it gives
    the exchanges the whole replay gives after that one (the model is pure):
    what a replay with a rule slip that changes nothing before it need not
    make again (bridge/checking/slips.py `Failure.judge`)."""

    position: int
    state: machine.State
    held: tuple[int, ...]
    idle: tuple[int, ...]
    starts: tuple[int, ...]
    outcomes: tuple[int, ...]


def from_model(
    scenario: Scenario,
    profile: Profile,
    strict: bool,
    lacks: tuple[Capability, ...] = (),
    refusals_only: bool = False,
    resume: Paused | None = None,
    paused: Callable[[Paused], object] | None = None,
) -> Iterator[Exchange]:
    """The exchanges of a scenario, by replaying it through the model under
    `profile`, for an engine that lacks `lacks`. With `strict`, every event
    must be refused exactly when the scenario marks it so, with the rule it
    names; otherwise ScenarioError names the file, line and what the model did.
    That holds up to the first event `lacks` changes: past it the model's
    state is not the one the scenario's marks were written for. With
    `refusals_only`, each expected answer holds only its refusal: enough to
    count what is sent and refused (bridge/checking/delivery.py), not to
    compare an engine. `paused` is given where the replay stands (`Paused`)
    after each exchange sent; `resume` (not `strict`) goes on from there."""
    model = ModelEngine(profile, refusals_only)
    model.start(scenario)
    held: list[int] = []
    idle: list[int] = []  # outcomes marked refused as not running, held while their call runs
    waiting: dict[str, deque[int]] = {"start": deque(), "outcome": deque()}
    if resume is not None:
        assert not strict
        model.state = resume.state
        held, idle = list(resume.held), list(resume.idle)
        waiting = {"start": deque(resume.starts), "outcome": deque(resume.outcomes)}
    lines_given = gives_lines(lacks)

    def send(position: int, event: dict[str, Any]) -> Exchange:
        nonlocal strict
        line = wire(event, position)
        lacking = withheld(lacks, event)
        if lacking is not None:
            strict = False
            return Exchange(line, position, lacking=lacking, sent=False)
        bytes_ = wire_bytes(scenario, position)
        if lines_given and event["event"] == "end" and "replies" in event:
            given = given_line(model, line)
            if given is line:
                model.answer(line)
            if given is None or given is line:
                return Exchange(line, position, lacking="replies", sent=False)
            line, bytes_, lacking, strict = given, None, "replies", False
        answer = model.answer(line)
        if strict:
            _check_refusal(scenario, position, answer, model.refusal)
        return Exchange(line, position, answer, wire=bytes_, lacking=lacking)

    def due() -> tuple[int, dict[str, Any]] | None:
        """The first held or waiting event that can be sent now."""
        if profile.self_calls:
            for p in held:
                if _running(model, scenario.events[p]):
                    held.remove(p)
                    return p, scenario.events[p]
            for p in idle:
                if not _running(model, scenario.events[p]):
                    idle.remove(p)
                    return p, scenario.events[p]
        ready = []
        if waiting["start"] and machine.candidates(model.state):
            ready.append(waiting["start"])
        if waiting["outcome"] and model.state.queue.running:
            ready.append(waiting["outcome"])
        if not ready:
            return None
        first = min(ready, key=lambda queue: queue[0])
        p = first.popleft()
        return p, resolved(scenario.events[p], model.state) or {}

    def noted(goes_on: int, exchange: Exchange) -> Exchange:
        """An exchange, where the replay stands after it given to `paused`."""
        if paused is not None and exchange.sent:
            queued = (tuple(waiting["start"]), tuple(waiting["outcome"]))
            paused(Paused(goes_on, model.state, tuple(held), tuple(idle), *queued))
        return exchange

    def drained(goes_on: int) -> Iterator[Exchange]:
        """The exchanges of the events held or waiting that can be sent now."""
        while (later := due()) is not None:
            yield noted(goes_on, send(*later))

    start = 0 if resume is None else resume.position
    if resume is not None:
        yield from drained(start)
    for position, given in enumerate(islice(scenario.events, start, None), start=start):
        if profile.self_calls and given["event"] == "start":
            continue
        event = resolved(given, model.state)
        if event is UNSENT:
            continue
        if event is None:
            waiting["start" if given["event"] == "start" else "outcome"].append(position)
            continue
        if profile.self_calls and event is given and event["event"] in ("end", "fail"):
            if given.get("refused") in IDLE:
                if _running(model, event):
                    idle.append(position)
                    continue
            elif not _running(model, event):
                held.append(position)
                continue
        yield noted(position + 1, send(position, event))
        yield from drained(position + 1)
    yield Exchange(DETAIL_REQUEST, None, model.answer(DETAIL_REQUEST))


def _check_refusal(scenario: Scenario, position: int, answer: dict[str, Any], why: str) -> None:
    marked = scenario.events[position].get("refused")
    found = answer.get("refused")
    if marked == found:
        return
    where = f"{scenario.source}:{position + 2}"
    if marked is None:
        raise ScenarioError(f"{where}: impossible event: {why}")
    did = "accepts it" if found is None else f"refuses it as {found} ({why})"
    raise ScenarioError(f"{where}: the scenario expects a refusal as {marked}; the model {did}")


def from_transcript(scenario: Scenario, path: Path) -> Iterator[Exchange]:
    """The exchanges of a scenario as its committed transcript records them.
    A record is `{"at":k,` or `{"detail":true,` then the answer's fields, so
    the answer's bytes are the record's with that first field cut out; a
    relative event's record says what was sent after `at` (`"node":[l,i],`,
    `"event":"timeout",` for a settle, `"kind":"user",` for a message), and
    that is cut out too."""
    for number, raw in enumerate(transcript.raw_records(path), start=2):
        head, sent, answer = transcript.cut(raw)
        if head == b'{"detail":true':
            yield Exchange(DETAIL_REQUEST, None, answer=answer)
            continue
        try:
            at = int(head.removeprefix(b'{"at":'))
        except ValueError:
            raise transcript.TranscriptError(f"{path}:{number}: not a transcript record") from None
        try:
            event = scenario.events[at] if at >= 0 else None
        except IndexError:
            event = None
        if event is None:
            raise transcript.TranscriptError(
                f"{path}:{number}: a record for event {at}, not in the scenario"
            )
        if not is_relative(event):
            yield Exchange(wire(event, at), at, answer=answer, wire=wire_bytes(scenario, at))
            continue
        if sent is None:
            raise transcript.TranscriptError(
                f"{path}:{number}: event {at} is relative; its record must say what was sent"
            )
        yield Exchange(wire(event, at, sent), at, answer=answer)


def changed(event: dict[str, Any], lacks: tuple[Capability, ...]) -> bool:
    """Whether an engine lacking `lacks` is sent this scenario event
    otherwise than the model was (not sent, or sent as a given line)."""
    if not lacks:
        return False
    if withheld(lacks, event) is not None:
        return True
    if "replies" in event and gives_lines(lacks):
        return True
    timeouts = withheld(lacks, {"event": "timeout"}) is not None
    return timeouts and event["event"] == "settle" and is_relative(event)


def changes(scenario: Scenario, lacks: tuple[Capability, ...]) -> bool:
    """Whether an engine lacking `lacks` is sent any of the scenario's events
    otherwise than the model was (`changed`; it reads them all)."""
    return any(changed(event, lacks) for event in scenario.events)


def transcript_until_changed(
    scenario: Scenario, stored: Path, profile: Profile, lacks: tuple[Capability, ...]
) -> Iterator[Exchange]:
    """The transcript's exchanges up to the first event an engine lacking
    `lacks` is sent otherwise (`changed`), then the model's from there: up to
    that event the model, replayed with or without `lacks`, sends the same
    lines and expects the same answers (the transcript's), so its replay
    is resumed past the exchanges already given. Known as the replay goes,
    without reading the whole scenario first."""
    given = 0
    for exchange in from_transcript(scenario, stored):
        at = exchange.position
        if at is not None and changed(scenario.events[at], lacks):
            break
        yield exchange
        given += 1
    else:
        return
    yield from islice(from_model(scenario, profile, strict=False, lacks=lacks), given, None)


def exchanges(
    path: Path, scenario: Scenario, profile: Profile, live: bool, lacks: tuple[Capability, ...] = ()
) -> Iterator[Exchange]:
    """The scenario's exchanges from its transcript for `profile`, or, when it
    has none (or `live`, or the engine lacks a capability that changes what
    is sent), from the model. A transcript made from another version of the
    scenario is refused, never used."""
    stored = expected_path(path, profile)
    if live or not stored.exists():
        return from_model(scenario, profile, strict=profile == SPEC, lacks=lacks)
    header = transcript.read_header(stored)
    if header.scenario_sha256 != transcript.sha256(path):
        if lacks:
            return from_model(scenario, profile, strict=False, lacks=lacks)
        again = (
            f"`{command()} expect {shlex.quote(str(path))}` makes it again"
            if clone()
            else "--live-model compares with the model instead"
        )
        raise ScenarioError(f"{stored}: made from another version of {path}; {again}")
    if lacks:
        return transcript_until_changed(scenario, stored, profile, lacks)
    return from_transcript(scenario, stored)
