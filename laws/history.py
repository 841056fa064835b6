"""Histories: the runner that checks every step law after every step (SPEC 8),
on histories drawn by the shared strategies (scenarios/strategies.py).

A history runs under SPEC's profile three times in four, otherwise under a
random engine profile (SPEC 10).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Broken, Held, Law, NotApplicable, Profile, Step, settings_for
from model import bits, machine
from model import node as nodes
from model.constants import Constants
from model.errors import Refused
from model.events import End, Event, Fail, Message, Start, Zoom
from model.profile import Profile as EngineProfile
from model.profile import deviations, options
from scenarios import format as scenario_format
from scenarios.strategies import (
    CONSTANTS,
    any_profile,
    below,
    constants_dict,
    draw_event,
    engine_profiles,
    event_dict,
)

TAKEN_OR_REFUSED = "refused_changes_nothing"
"""The law an event that the model neither takes nor refuses breaks."""


def profiles_for(laws: list[Law]) -> st.SearchStrategy[EngineProfile]:
    """`any_profile()`, unless every one of `laws` is off under SPEC's own
    profile (`--only` profile laws): then random profiles that some of them
    apply to, rather than histories that check nothing."""
    if any(law.off(EngineProfile()) is None for law in laws):
        return any_profile()
    return engine_profiles().filter(lambda p: any(law.off(p) is None for law in laws))


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
    `--only` run of them would be (also those no shared history applied
    to). A failure outside every law stops the run."""
    results: dict[str, Held | Broken | NotApplicable] = {}
    tally = Tally()
    harness = _check(list(laws), profile, folder, progress, engine, results, tally)
    stopped = profile.first_break and any(isinstance(r, Broken) for r in results.values())
    mixed = any(law.off(EngineProfile()) is None for law in laws)  # see profiles_for
    # A law the shared histories never applied to (none of their profiles
    # switched it on) gets that pass too, or it would never be checked.
    again = [
        law
        for law in laws
        if law.off(EngineProfile()) is not None
        and isinstance(results.get(law.name), Held | NotApplicable)
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
