"""Histories: Hypothesis strategies for constants, engine profiles and event
sequences, and the runner that checks every step law after every step
(SPEC 8).

Events are drawn mostly from what the state allows (the model's candidates,
its running calls, a settle only when settled), so every order the queue
allows appears: messages from empty to many times NODE with multibyte
characters, all three newline kinds and U+2028, call starts, ends (with a
line, or with the replies the call got) and failures in any order, waits,
settles, timeouts, retry ticks and zooms. Now and then an event the state
may not allow is drawn on purpose, so that refusals are checked too. A
history runs under SPEC's profile three times in four, otherwise under a
random engine profile (SPEC 10).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Broken, Held, Law, NotApplicable, Profile, Step, settings_for
from model import bits, machine
from model import node as nodes
from model.constants import KINDS, Constants
from model.errors import Refused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.node import Node
from model.profile import Profile as EngineProfile
from model.profile import deviations, options
from scenarios import format as scenario_format

T = TypeVar("T")

TAKEN_OR_REFUSED = "refused_changes_nothing"
"""The law an event that the model neither takes nor refuses breaks."""

SMALL_TEXT = st.text(alphabet=st.sampled_from(list("ab é€😀\r\n\u2028 ")), max_size=12)


@st.composite
def small_constants(draw: st.DrawFn) -> Constants:
    """Small budgets, so deep trees, many batches, shrinking views and
    failure caps show up in short histories."""
    node = draw(st.sampled_from([16, 32, 64]))
    ceiling = draw(st.integers(3 * node, 30 * node))
    floor = draw(st.integers(ceiling // 4, ceiling))
    cceiling = draw(st.integers(node, ceiling))
    cfloor = draw(st.integers(0, cceiling))
    return Constants(
        node=node,
        ceiling=ceiling,
        floor=floor,
        cceiling=cceiling,
        cfloor=cfloor,
        jobs=draw(st.integers(1, 4)),
        ahead=draw(st.integers(1, 4)),
        tries=draw(st.integers(1, 5)),
        failures=draw(st.integers(1, 3)),
    )


@st.composite
def any_constants(draw: st.DrawFn) -> Constants:
    """Small budgets mostly; the SPEC defaults in about one history in ten."""
    return Constants() if draw(st.integers(0, 99)) >= 90 else draw(small_constants())


CONSTANTS = any_constants()

WORDS = st.sampled_from(["you", "talk", "é€", "x"])
SOME_KINDS = st.one_of(st.just(frozenset(KINDS)), st.frozensets(st.sampled_from(KINDS), min_size=1))
"""The kinds an engine takes (SPEC 10): all of them, or some."""


@st.composite
def engine_profiles(draw: st.DrawFn) -> EngineProfile:
    """Every option of SPEC 10 at random."""
    words = draw(st.dictionaries(st.sampled_from(KINDS), WORDS))
    return EngineProfile(
        trim_lines=draw(st.booleans()),
        kind_words=tuple(sorted(words.items())),
        need_first=draw(st.booleans()),
        failure_cap=draw(st.sampled_from(["failures", "none"])),
        calls=draw(st.sampled_from(["driven", "self"])),
        ahead_in_wait=draw(st.booleans()),
        empty_chat=draw(st.sampled_from(["tags", "blank_line"])),
        kinds=tuple(k for k in KINDS if k in draw(SOME_KINDS)),
        retry=draw(st.sampled_from(["message", "tick"])),
        held_takes_job=draw(st.booleans()),
        merge_order=draw(st.sampled_from(["level", "ready"])),
        resume=draw(st.sampled_from(["settle", "self"])),
        empty_reply=draw(st.sampled_from(["ends", "fails"])),
        not_shorter=draw(st.sampled_from(["stops", "goes_on"])),
    )


@st.composite
def any_profile(draw: st.DrawFn) -> EngineProfile:
    """SPEC's own profile three times in four, a random one otherwise."""
    return EngineProfile() if draw(st.integers(0, 3)) else draw(engine_profiles())


def profiles_for(laws: list[Law]) -> st.SearchStrategy[EngineProfile]:
    """`any_profile()`, unless every one of `laws` is off under SPEC's own
    profile (`--only` profile laws): then random profiles that some of them
    apply to, rather than histories that check nothing."""
    if any(law.off(EngineProfile()) is None for law in laws):
        return any_profile()
    return engine_profiles().filter(lambda p: any(law.off(p) is None for law in laws))


@cache
def below(n: int) -> st.SearchStrategy[int]:
    """An index in `range(n)`: strategies are made once, since making one
    costs Hypothesis more than drawing from it."""
    return st.integers(0, n - 1)


def choose(data: st.DataObject, items: Sequence[T]) -> T:
    """One of `items`, drawn."""
    return items[data.draw(below(len(items)))]


@cache
def texts(node: int) -> st.SearchStrategy[str]:
    """Message texts: tiny ones, and sized ones up to six times NODE."""
    return st.one_of(
        SMALL_TEXT,
        st.builds(scenario_format.sized_text, st.integers(0, 6 * node), st.integers(0, 60)),
    )


@cache
def replies(node: int) -> st.SearchStrategy[tuple[str, ...]]:
    """What a call got: fitting, over-long, empty and blank replies; and
    over-long replies of one size, where "not shorter" and "shorter" differ
    (SPEC 5: a follow-up as long as the best ends the tries)."""
    reply = st.one_of(
        st.sampled_from(["", " ", " \n"]),
        st.builds(scenario_format.sized_text, st.integers(1, 3 * node), st.integers(0, 40)),
    )
    same_size = st.builds(
        lambda size, count, first: tuple(
            scenario_format.sized_text(size, first + k) for k in range(count)
        ),
        st.integers(node + 1, 3 * node),
        st.integers(2, 4),
        st.integers(0, 40),
    )
    return st.one_of(st.lists(reply, min_size=1, max_size=7).map(tuple), same_size)


def illegal(data: st.DataObject, state: machine.State) -> Event:
    """An event drawn with no regard to what the state allows."""
    t = bits.to_int(state.count)
    level = data.draw(below(4))
    node = Node(level, bits.from_int(data.draw(below((t >> level) + 2))))
    return choose(
        data,
        [
            Start(node),
            End(node, "x"),
            End(node, ""),
            End(node, "x" * (state.constants.node + 1)),
            Fail(node),
            Wait(),
            Settle(),
            Timeout(),
            Message("bot", "hi"),
            Message("user", "a\ud800"),
            Zoom(bits.from_int(t + 1), bits.ONE),
            Zoom(bits.ZERO, bits.from_int(3)),
        ],
    )


def draw_event(data: st.DataObject, state: machine.State) -> Event:
    """One event, weighted towards messages and calls, mostly one the state allows."""
    c = state.constants
    # What every state offers comes first, at fixed places, so that a shrunk
    # history's choices keep their meaning when events before them go.
    options = ["message"] * 4 + ["timeout" if state.queue.waiting else "wait", "illegal", "zoom"]
    if machine.candidates(state):
        options += ["start"] * 4
    if state.queue.running:
        options += ["end"] * 4 + ["replies"] * 2 + ["fail"]
    if state.queue.held:
        options += ["retry"]
    if state.queue.waiting and machine.settled(state):
        options += ["settle"] * 4
    choice = choose(data, options)
    if choice == "message":
        return Message(choose(data, state.profile.kinds), data.draw(texts(c.node)))
    if choice == "start":
        return Start(choose(data, machine.candidates(state)))
    if choice in ("end", "replies", "fail"):
        node = choose(data, state.queue.running)
        if choice == "fail":
            return Fail(node)
        if choice == "replies":
            return End(node, replies=data.draw(replies(c.node)))
        size = 1 + data.draw(below(6 if data.draw(below(2)) else c.node))
        return End(node, scenario_format.sized_text(size, data.draw(below(61))))
    if choice == "zoom":
        t = bits.to_int(state.count)
        n = 1 << data.draw(below(max(1, t.bit_length())))
        id = data.draw(below(t + 1)) // n * n
        return Zoom(bits.from_int(id), bits.from_int(n))
    if choice == "illegal":
        return illegal(data, state)
    return {"wait": Wait(), "timeout": Timeout(), "settle": Settle(), "retry": Retry()}[choice]


def node_list(node: Node) -> list[int]:
    return [node.level, bits.to_int(node.index)]


def event_dict(event: Event) -> dict[str, Any]:
    """An event in the scenario format."""
    match event:
        case Message(kind, text):
            return {"event": "message", "kind": kind, "text": text}
        case Start(node):
            return {"event": "start", "node": node_list(node)}
        case End(node, line, None):
            return {"event": "end", "node": node_list(node), "line": line}
        case End(node, None, replies):
            return {
                "event": "end",
                "node": node_list(node),
                "replies": [{"text": r} for r in replies],
            }
        case Fail(node):
            return {"event": "fail", "node": node_list(node)}
        case Zoom(id, n):
            return {"event": "zoom", "id": bits.to_int(id), "n": bits.to_int(n)}
    return {"event": type(event).__name__.lower()}


def constants_dict(c: Constants) -> dict[str, int | float]:
    return {name: getattr(c, name) for name in scenario_format.CONSTANTS}


def describe(event: Event) -> str:
    match event:
        case Message(kind, text):
            return f"message {kind} ({len(text.encode('utf-8', 'replace'))} bytes) {text[:40]!r}"
        case Start(node):
            return f"start {nodes.name(node)}"
        case End(node, line, None):
            size = len(str(line).encode("utf-8", "replace"))
            return f"end {nodes.name(node)} with a {size}-byte line"
        case End(node, None, replies):
            sizes = [len(r.encode("utf-8", "replace")) for r in replies]
            return f"end {nodes.name(node)} with replies of {sizes} bytes"
        case Fail(node):
            return f"fail {nodes.name(node)}"
        case Zoom(id, n):
            return f"zoom({bits.to_int(id)}, {bits.to_int(n)})"
    return type(event).__name__.lower()


@dataclass
class Failure:
    """A history that broke a law (`law` names it), or the harness (`law` None)."""

    law: str | None
    message: str
    constants: Constants
    profile: EngineProfile
    events: list[tuple[Event, str | None]]


@dataclass
class Tally:
    seconds: dict[str, float] = field(default_factory=dict)
    applied: dict[str, int] = field(default_factory=dict)
    histories: int = 0
    events: int = 0
    refused: int = 0
    searching: float = 0.0  # seconds of drawing and checking, summed over processes


class Stop(Exception):
    """Raised inside a history to let Hypothesis shrink it."""


HEARTBEAT = 10.0
"""Seconds between progress lines while histories are drawn."""


def _search(
    active: list[Law],
    profile: Profile,
    tally: Tally,
    engine: EngineProfile | None,
    progress: Callable[[str], None],
) -> Failure | None:
    failures: list[Failure] = []
    profiles = st.just(engine) if engine is not None else profiles_for(active)
    started = time.monotonic()
    histories_before, events_before = tally.histories, tally.events
    said = started

    def heartbeat() -> None:
        # Outside `history`: a derandomized run's cases follow its source.
        nonlocal said
        if time.monotonic() - said >= HEARTBEAT:
            said = time.monotonic()
            progress(
                f"histories: {tally.histories - histories_before} drawn, "
                f"{profile.histories} asked for ({tally.events - events_before:,} events, "
                f"{said - started:.0f} s)"
            )

    @settings_for(profile, profile.histories)
    @given(CONSTANTS, profiles, st.data())
    def history(constants: Constants, chosen: EngineProfile, data: st.DataObject) -> None:
        heartbeat()
        state = machine.initial(constants, chosen)
        events: list[tuple[Event, str | None]] = []
        applicable = [law for law in active if law.off(chosen) is None]
        tally.histories += 1
        for law in applicable:
            tally.applied[law.name] = tally.applied.get(law.name, 0) + 1

        def fail(law: str | None, message: str) -> None:
            failures.append(Failure(law, message, constants, chosen, list(events)))
            raise Stop

        for _ in range(data.draw(below(profile.steps + 1))):
            event = draw_event(data, state)
            refused: str | None = None
            try:
                after = machine.step(state, event)
            except Refused as error:
                refused = error.rule
                after = machine.refuse(state)
            except Exception:
                # SPEC 4.1: an event is taken or refused; a model that raises
                # anything else breaks that law, when the history checks it.
                events.append((event, None))
                owner = (
                    TAKEN_OR_REFUSED
                    if any(law.name == TAKEN_OR_REFUSED for law in applicable)
                    else None
                )
                fail(
                    owner,
                    "the model raised instead of taking or refusing the event: "
                    + traceback.format_exc(limit=6),
                )
            events.append((event, refused))
            tally.events += 1
            tally.refused += refused is not None
            current = Step(state, event, after, refused)
            for law in applicable:
                began = time.perf_counter()
                try:
                    law.function(current)
                except AssertionError as error:
                    fail(law.name, str(error) or "an assertion failed")
                except Stop:
                    raise
                except Exception as error:
                    fail(law.name, f"{type(error).__name__}: {error}")
                finally:
                    tally.seconds[law.name] = (
                        tally.seconds.get(law.name, 0.0) + time.perf_counter() - began
                    )
            state = after

    try:
        history()
    except Stop:
        return failures[-1]
    return None


def scenario_of(failure: Failure) -> scenario_format.Scenario:
    """The failing history as a scenario the bridge can replay."""
    events = []
    for event, refused in failure.events:
        record = event_dict(event)
        if refused is not None:
            record["refused"] = refused
        events.append(record)
    return scenario_format.Scenario(
        constants=constants_dict(failure.constants),
        events=events,
        generator=f"laws: shrunk counterexample to {failure.law or 'the harness'}",
        notes={"law": failure.law, "says": failure.message, "profile": options(failure.profile)},
    )


def write_counterexample(failure: Failure, folder: Path) -> Path:
    """The failing history as a scenario file the bridge can replay."""
    path = folder / f"law_{failure.law or 'harness'}.jsonl"
    scenario_format.write(scenario_of(failure), path)
    return path


def report(failure: Failure) -> str:
    differ = deviations(failure.profile)
    return "\n".join(
        [
            f"constants: {constants_dict(failure.constants)}",
            f"profile: {'; '.join(differ) if differ else 'SPEC'}",
            *(
                f"{k:3d}. {describe(e)}" + (f" (refused: {r})" if r else "")
                for k, (e, r) in enumerate(failure.events, start=1)
            ),
            f"broken after the last event: {failure.message}",
        ]
    )


@dataclass
class Verdicts:
    """What the step laws came to: a verdict per law, and a harness error if
    the histories themselves failed outside every law."""

    results: dict[str, Held | Broken | NotApplicable]
    harness: str | None
    tally: Tally


def check_step_laws(
    laws: list[Law],
    profile: Profile,
    folder: Path,
    progress: Callable[[str], None] = lambda _: None,
    engine: EngineProfile | None = None,
) -> Verdicts:
    """Check every step law on the profile's histories (under `engine`, or
    under sampled engine profiles). A broken law is reported with its shrunk
    history, then the rest are checked again without it, so each law gets
    its own verdict. Without `engine`, the laws that SPEC's own profile
    switches off, which see only the histories drawn under another profile,
    are then checked again on histories of profiles they apply to, as an
    `--only` run of them would be. A failure outside every law stops the run."""
    results: dict[str, Held | Broken | NotApplicable] = {}
    tally = Tally()
    harness = _check(list(laws), profile, folder, progress, engine, results, tally)
    stopped = profile.first_break and any(isinstance(r, Broken) for r in results.values())
    mixed = any(law.off(EngineProfile()) is None for law in laws)  # see profiles_for
    again = [
        law
        for law in laws
        if law.off(EngineProfile()) is not None and isinstance(results.get(law.name), Held)
    ]
    if engine is None and mixed and again and harness is None and not stopped:
        harness = _check(again, profile, folder, progress, engine, results, tally)
    return Verdicts(results, harness, tally)


def _check(
    active: list[Law],
    profile: Profile,
    folder: Path,
    progress: Callable[[str], None],
    engine: EngineProfile | None,
    results: dict[str, Held | Broken | NotApplicable],
    tally: Tally,
) -> str | None:
    """One pass of `check_step_laws` over `active`: verdicts into `results`;
    the harness error, if the histories failed outside every law."""
    while active:
        progress(f"histories: {len(active)} step laws, up to {profile.histories} histories")
        began = time.perf_counter()
        failure = _search(active, profile, tally, engine, progress)
        tally.searching += time.perf_counter() - began
        if failure is None:
            for law in active:
                results[law.name] = strength(law, profile, tally, engine)
            return None
        path = write_counterexample(failure, folder)
        if failure.law is None:
            return f"{report(failure)}\n  replay: {path}"
        law = next(law for law in active if law.name == failure.law)
        results[law.name] = Broken(law.name, law.statement, report(failure), str(path))
        active.remove(law)
        if profile.first_break:
            return None
    return None


def merged(
    shards: list[Verdicts], laws: list[Law], profile: Profile, engine: EngineProfile | None
) -> Verdicts:
    """The verdicts of shards that each checked the same laws on their own
    histories, as one run: a law broken in any shard is broken (the first
    shard's counterexample), the others hold over all the shards' histories."""
    tally = Tally()
    for shard in shards:
        for name, seconds in shard.tally.seconds.items():
            tally.seconds[name] = tally.seconds.get(name, 0.0) + seconds
        for name, count in shard.tally.applied.items():
            tally.applied[name] = tally.applied.get(name, 0) + count
        tally.histories += shard.tally.histories
        tally.events += shard.tally.events
        tally.refused += shard.tally.refused
        tally.searching += shard.tally.searching
    results: dict[str, Held | Broken | NotApplicable] = {}
    for law in laws:
        broken = [
            s.results[law.name] for s in shards if isinstance(s.results.get(law.name), Broken)
        ]
        if broken:
            results[law.name] = broken[0]
        elif all(law.name in s.results for s in shards):
            results[law.name] = strength(law, profile, tally, engine)
    harness = next((s.harness for s in shards if s.harness is not None), None)
    return Verdicts(results, harness, tally)


def strength(
    law: Law, profile: Profile, tally: Tally, engine: EngineProfile | None
) -> Held | NotApplicable:
    """How strongly a step law held, over the histories it applied to."""
    applied = tally.applied.get(law.name, 0)
    if applied == 0:
        why = law.off(engine) if engine is not None else "every history's profile"
        return NotApplicable(f"not applicable under {why}")
    return Held(f"property over {applied} histories of up to {profile.steps} events")
