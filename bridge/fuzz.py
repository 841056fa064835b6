"""`python -m bridge fuzz`: generated scenarios for any engine, until one diverges.

Hypothesis draws histories with the laws' strategies (laws/history.py: small
constants most of the time, every event kind, events the state does not
allow, replies, zooms, multibyte texts, `\\r`, `\\r\\n`, U+2028, big and
empty texts), under the profile the engine declares (or `--profile`). Each
history is a scenario replayed through the model and the engine in lockstep
(bridge/compare.py `run`), in one engine process for all of them when the
engine takes sessions (bridge/PROTOCOL.md). The first divergence is shrunk
(by Hypothesis over the history, then by removing events, dropping the
oldest messages and making the constants smaller), written as a scenario
with its transcript and its HTML page, and reported as `compare` reports
it. A run without one stops on time (or after `--histories`) with a
summary; either way it says its throughput and the seed that repeats it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from bridge.compare import Divergence, add_states, run, shrink
from bridge.corpus import Options, make_engine, profile_of
from bridge.engines import Engine, EngineFault, ModelEngine
from bridge.profile import agreement
from bridge.stream import from_model
from model.profile import Profile
from scenarios.format import Scenario

DEFAULT_SECONDS = 60.0
"""How long a run without `--seconds` or `--histories` looks for a divergence."""

STARTS = 4
"""How many diverging histories shrinking starts from (see `fuzz`)."""

BEAT_SECONDS = 10.0
"""At most this long between two progress lines."""


class Halt(Exception):
    """Raised inside a history to end the search: out of time, or an engine fault."""


class Diverged(Exception):
    """Raised inside a history whose replay diverged, so that Hypothesis shrinks it."""


@dataclass
class Found:
    """A diverging history: its events up to the divergence, how many it had,
    and when it was found."""

    scenario: Scenario
    divergence: Divergence
    seconds: float
    generated: int


def size_of(scenario: Scenario) -> tuple[int, int]:
    """How big a scenario is: its events, then their JSON length."""
    return len(scenario.events), len(json.dumps(scenario.events))


@dataclass
class Fuzzer:
    """One engine, kept started across histories, and what the run has seen."""

    engine: Engine
    profile: Profile
    options: Options
    seconds_given: float | None
    """The search's time; None for no limit."""
    shrink_seconds: float
    """Shrinking's time, from the first divergence: Hypothesis's quarter,
    then `simplify`'s."""
    began: float = field(default_factory=time.monotonic)
    histories: int = 0
    events: int = 0
    skipped: int = 0
    tries: int = 0
    """Replays made while shrinking."""
    first: Found | None = None
    found: list[Found] = field(default_factory=list)
    """Every diverging history, the first first: the one found, then those
    Hypothesis tried while shrinking it."""
    smallest: int = 0
    """The fewest events of a diverging scenario so far (while shrinking)."""
    fault: EngineFault | None = None
    faulted: Scenario | None = None
    last_beat: float = field(default_factory=time.monotonic)

    def seconds(self) -> float:
        return time.monotonic() - self.began

    def searching(self) -> bool:
        return self.first is None

    def out_of_time(self) -> bool:
        return self.seconds_given is not None and self.seconds() >= self.seconds_given

    def shrinking_left(self) -> float:
        """The seconds of the shrinking budget left."""
        assert self.first is not None
        return self.first.seconds + self.shrink_seconds - self.seconds()

    def shrink_over(self) -> bool:
        """Whether Hypothesis's part of the shrinking budget (a quarter) is spent."""
        return self.first is not None and self.shrinking_left() < self.shrink_seconds * 3 / 4

    def beat(self, _answers: int = 0) -> None:
        """A progress line on stderr, at most every BEAT_SECONDS."""
        now = time.monotonic()
        if now - self.last_beat < BEAT_SECONDS:
            return
        self.last_beat = now
        if self.searching():
            said = f"{self.histories} histories, {self.events} events ({self.rate():.0f} events/s)"
        else:
            said = f"shrinking: {self.tries} tries, smallest {self.smallest} events"
        print(f"  ... fuzz: {said}, {self.seconds():.0f} s", file=sys.stderr, flush=True)

    def rate(self) -> float:
        spent = (self.first.seconds if self.first else self.seconds()) or 1e-9
        return self.events / spent

    def replay(self, scenario: Scenario, keep_going: bool = True) -> Divergence | None:
        """The engine's first divergence from the model on `scenario`, or None
        (also when the engine cannot take it). With `keep_going` every answer
        is read, so that a session engine can take the next scenario."""
        ready = self.engine.start(scenario)
        declared = profile_of(ready.profile, self.options.profile, self.engine.name)
        if ready.unsupported is None and declared != self.profile:
            raise EngineFault(
                f"engine {self.engine.name!r} declared another profile than at its start: "
                f"{agreement(declared)}"
            )
        if ready.unsupported is not None:
            self.skipped += self.searching()
            return None
        result = run(
            from_model(scenario, self.profile, strict=False),
            self.engine,
            ready,
            None,
            keep_going,
            self.beat,
        )
        if result.unsupported is not None:
            self.skipped += self.searching()
            return None
        if self.searching():
            self.histories += 1
            self.events += len(result.sent)
        else:
            self.tries += 1
        self.beat()
        return result.divergence

    def check(self, scenario: Scenario) -> None:
        """Replay one generated history: Diverged when it diverges, Halt when
        the run is over (on time, or after an engine fault)."""
        try:
            found = self.replay(scenario)
        except EngineFault as fault:
            self.fault, self.faulted = fault, scenario
            raise Halt from None
        if found is None:
            return
        here = Found(cut(scenario, found), found, self.seconds(), len(scenario.events))
        self.first = self.first or here
        self.found.append(here)
        self.diverged(here.scenario)
        raise Diverged

    def diverges(self, scenario: Scenario) -> bool:
        if self.replay(scenario) is None:
            return False
        self.diverged(scenario)
        return True

    def diverged(self, scenario: Scenario) -> None:
        events = len(scenario.events)
        self.smallest = min(self.smallest, events) if self.smallest else events


def cut(scenario: Scenario, found: Divergence) -> Scenario:
    """The scenario up to the last event sent before the divergence."""
    sent = [line["at"] for line in found.lines if "at" in line]
    last = max(sent) + 1 if sent else len(scenario.events)
    return replace(scenario, events=scenario.events[:last], lines=None)


def marked(scenario: Scenario, profile: Profile) -> Scenario:
    """The scenario with each event the model refuses marked with its rule, as
    the format asks of a scenario whose events are not all allowed."""
    events = [{k: v for k, v in e.items() if k != "refused"} for e in scenario.events]
    plain = replace(scenario, events=events, lines=None)
    rules = {
        exchange.position: exchange.expected["refused"]
        for exchange in from_model(plain, profile, strict=False)
        if exchange.position is not None and "refused" in exchange.expected
    }
    return replace(
        plain,
        events=[{**e, "refused": rules[k]} if k in rules else e for k, e in enumerate(events)],
    )


LOWEST = {"floor": 0, "cfloor": 0, "node": 4}
"""The smallest value of each constant shrinking tries (1 for the others not
listed; a ceiling not below its floor)."""

SHRUNK_CONSTANTS = (
    *("floor", "ceiling", "cfloor", "cceiling"),
    *("node", "jobs", "ahead", "tries", "failures"),
)


def smaller_constants(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """The scenario with each constant as small as found while `still` holds
    (smaller budgets need fewer events to reach the same batch)."""
    from model.constants import Constants

    constants = dict(scenario.constants)
    for name in SHRUNK_CONSTANTS:
        value = int(constants[name])
        lowest = {"ceiling": constants["floor"], "cceiling": constants["cfloor"]}.get(
            name, LOWEST.get(name, 1)
        )
        steps = {value - ((value - int(lowest)) >> k) for k in range(value.bit_length() + 1)}
        for candidate in sorted(steps):
            if not lowest <= candidate < value or time.monotonic() >= deadline:
                continue
            trial = {**constants, name: candidate}
            try:
                Constants(**trial)  # type: ignore[arg-type]
            except ValueError:
                continue
            if still(replace(scenario, constants=trial, lines=None)):
                constants = trial
                break
    return replace(scenario, constants=constants, lines=None)


def without_oldest(scenario: Scenario, level: int) -> Scenario | None:
    """The scenario without its first 2^level messages, the nodes of later
    events renumbered to match (those at `level` or below; one inside the
    removed messages goes with them). None when it has fewer messages."""
    block = 1 << level
    gone = {k for k, e in enumerate(scenario.events) if e["event"] == "message"}
    gone = set(sorted(gone)[:block])
    if len(gone) < block:
        return None
    events = []
    for k, event in enumerate(scenario.events):
        if k in gone:
            continue
        if "node" in event and event["node"][0] <= level:
            node_level, index = event["node"]
            index -= 1 << (level - node_level)
            if index < 0:
                continue
            event = {**event, "node": [node_level, index]}
        events.append(event)
    return replace(scenario, events=events, lines=None)


def drop_oldest(scenario: Scenario, still: Callable[[Scenario], bool], deadline: float) -> Scenario:
    """The scenario without as many of its oldest messages as found while
    `still` holds: what diverges is often about the newest ones only, which
    removing single events cannot renumber."""
    messages = sum(e["event"] == "message" for e in scenario.events)
    level = max(messages.bit_length() - 1, 0)
    while level >= 0 and time.monotonic() < deadline:
        trial = without_oldest(scenario, level)
        if trial is not None and trial.events and still(trial):
            scenario = trial
        else:
            level -= 1
    return scenario


def fewer_events(
    scenario: Scenario, still: Callable[[Scenario], bool], deadline: float
) -> Scenario:
    """Events removed (bridge.compare.shrink) and the oldest messages dropped
    in turn while `still` holds, until neither removes one."""
    while True:
        scenario = shrink(scenario, still, deadline - time.monotonic())
        dropped = drop_oldest(scenario, still, deadline)
        if dropped is scenario or time.monotonic() >= deadline:
            return dropped
        scenario = dropped


def simplify(scenario: Scenario, still: Callable[[Scenario], bool], seconds: float) -> Scenario:
    """Fewer events while `still` holds; then, in turn, smaller constants and
    fewer events again, kept only while that leaves fewer events, until
    `seconds` are spent."""
    deadline = time.monotonic() + seconds
    scenario = fewer_events(scenario, still, deadline)
    while time.monotonic() < deadline:
        trial = smaller_constants(scenario, still, deadline)
        if trial.constants == scenario.constants:
            break
        trial = fewer_events(trial, still, deadline)
        if len(trial.events) >= len(scenario.events):
            break
        scenario = trial
    return scenario


def search(fuzzer: Fuzzer, seed: int, histories: int | None, max_events: int) -> None:
    """Generate histories with Hypothesis and replay each, until one diverges
    (then Hypothesis shrinks it, within the shrinking budget), the time is
    up, `histories` ran, or the engine faults."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings, strategies
    from hypothesis import seed as with_seed
    from hypothesis.errors import Flaky

    from laws.history import CONSTANTS, below, constants_dict, draw_event, event_dict
    from model import machine
    from model.errors import Refused
    from model.events import Start

    profile = fuzzer.profile

    @with_seed(seed)
    @settings(
        max_examples=histories or 10**9,
        derandomize=False,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
    )
    @given(strategies.data())
    def history(data: strategies.DataObject) -> None:
        if fuzzer.fault is not None or (fuzzer.searching() and fuzzer.out_of_time()):
            raise Halt
        if fuzzer.shrink_over():
            return  # Hypothesis's shrinking ends: every try now passes
        constants = data.draw(CONSTANTS)
        state = machine.initial(constants, profile)
        events = []
        for _ in range(data.draw(below(max_events + 1))):
            event = draw_event(data, state)
            if profile.self_calls and isinstance(event, Start):
                continue  # never sent under `calls: self` (bridge/stream.py)
            try:
                state = machine.step(state, event)
            except Refused:
                state = machine.refuse(state)
            events.append(event_dict(event))
        fuzzer.check(Scenario(constants_dict(constants), events, "bridge fuzz", seed))

    try:
        history()
    except (Halt, Diverged, Flaky):
        pass  # what was found is in `fuzzer`; Flaky: shrinking was cut short


def add_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    engine_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Add the `fuzz` command to the bridge's command line (bridge/cli.py)."""
    from bridge.cli import REGRESSIONS  # bridge.cli imports this module

    command = commands.add_parser("fuzz", help="generated scenarios until one diverges, shrunk")
    engine_options(command)
    command.add_argument(
        "--seconds",
        type=positive,
        help=f"stop after this long (default {DEFAULT_SECONDS:g}, or none with --histories)",
    )
    command.add_argument("--histories", type=positive_int, help="stop after this many histories")
    command.add_argument("--seed", type=int, help="repeat a run (default: random, printed)")
    command.add_argument(
        "--max-events", type=positive_int, default=100, help="the longest history (default 100)"
    )
    command.add_argument("--regressions", type=Path, default=REGRESSIONS, metavar="DIR")
    command.add_argument(
        "--shrink-seconds", type=positive, default=60.0, help="shrinking's budget (default 60)"
    )
    command.set_defaults(run=main)


def positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text}: not a positive number")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: not a positive whole number")
    return value


def main(args: argparse.Namespace) -> int:
    """The `fuzz` command: 0 no divergence, 1 a divergence (written, shrunk), 2
    an engine fault or bad input."""
    from bridge.cli import read_profile

    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print(
            "optchat-spec fuzz: fuzzing needs Hypothesis, from the `laws` extra: "
            "pip install 'optchat-spec[laws]'",
            file=sys.stderr,
        )
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    seconds = args.seconds
    if seconds is None and args.histories is None:
        seconds = DEFAULT_SECONDS
    options = Options(args.engine, args.timeout, read_profile(args.profile))
    subject = make_engine(options)
    try:
        return fuzz(args, options, subject, seed, seconds)
    finally:
        subject.close()


def fuzz(
    args: argparse.Namespace, options: Options, subject: Engine, seed: int, seconds: float | None
) -> int:
    from bridge.cli import UsageError, slug, write_regression  # bridge.cli imports this module
    from bridge.show import write_divergence_report
    from laws.history import constants_dict
    from model.constants import Constants

    ready = subject.start(Scenario(constants_dict(Constants()), [], "bridge fuzz"))
    if ready.protocol == 1:
        raise UsageError(f"engine {subject.name!r} speaks protocol 1; fuzz needs protocol 2")
    profile = profile_of(ready.profile, options.profile, subject.name)
    fuzzer = Fuzzer(subject, profile, options, seconds, args.shrink_seconds)
    engine = json.dumps(subject.name)
    again = f"python -m bridge fuzz --engine {engine} --seed {seed}"
    if args.histories is not None:
        again += f" --histories {args.histories}"
    if args.max_events != 100:
        again += f" --max-events {args.max_events}"
    if args.profile is not None:
        again += f" --profile {args.profile}"
    limits = [f"{seconds:g} s"] if seconds is not None else []
    limits += [f"{args.histories} histories"] if args.histories is not None else []
    print(
        f"fuzzing {subject.name} ({agreement(profile)}) with seed {seed}, "
        f"for {' or '.join(limits)} at most",
        flush=True,
    )
    search(fuzzer, seed, args.histories, args.max_events)
    spent = fuzzer.first.seconds if fuzzer.first else fuzzer.seconds()
    skipped = f", {fuzzer.skipped} skipped (the engine cannot take them)" if fuzzer.skipped else ""
    print(
        f"throughput: {fuzzer.histories} histories, {fuzzer.events} events in {spent:.1f} s: "
        f"{fuzzer.rate():.0f} events/s{skipped}",
        flush=True,
    )
    if fuzzer.fault is not None:
        assert fuzzer.faulted is not None
        path = write_regression(
            fuzzer.faulted, profile, args.regressions, f"fuzz-{seed}-fault-{slug(subject.name)}"
        )
        print(f"the history the engine failed on: {path}\nrepeat: {again}", flush=True)
        raise fuzzer.fault
    if fuzzer.first is None:
        print(
            f"no divergence in {fuzzer.histories} histories, {fuzzer.events} events "
            f"({fuzzer.rate():.0f} events/s) in {spent:.1f} s: {subject.name} "
            f"{agreement(profile)}; seed {seed}\nrepeat: {again}"
        )
        return 0
    first = fuzzer.first
    print(
        f"DIVERGED after {first.seconds:.1f} s, at history {fuzzer.histories} "
        f"({first.generated} events): {first.divergence.summary()}",
        flush=True,
    )
    print(f"shrinking ({args.shrink_seconds:g} s at most) ...", flush=True)
    # Removing events from one diverging history can stop at a larger scenario
    # than from another: the first found and the smallest Hypothesis tried are
    # each simplified, with an equal share of what is left, and the smallest kept.
    starts = [first.scenario]
    for other in sorted(fuzzer.found, key=lambda f: size_of(f.scenario)):
        if len(starts) < STARTS and other.scenario not in starts:
            starts.append(other.scenario)
    print(
        f"Hypothesis shrank it to {min(len(s.events) for s in starts)} events "
        f"in {fuzzer.seconds() - first.seconds:.1f} s",
        flush=True,
    )
    shrunk = [
        simplify(s, fuzzer.diverges, fuzzer.shrinking_left() / (len(starts) - k))
        for k, s in enumerate(starts)
    ]
    small = min(shrunk, key=size_of)
    final = marked(
        replace(
            small,
            generator=f"bridge fuzz: shrunk from a generated history against {subject.name}",
            seed=seed,
            notes={"engine": subject.name, "events_before": first.generated},
        ),
        profile,
    )
    found = fuzzer.replay(final, keep_going=False)
    if found is None:
        raise EngineFault(
            f"engine {subject.name!r} diverged on a scenario, then agreed on the same "
            "scenario: its answers do not depend on the events alone"
        )
    path = write_regression(final, profile, args.regressions, f"fuzz-{seed}-{slug(subject.name)}")
    add_states(found, final, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    page = write_divergence_report(
        path.with_suffix(".html"), final, found, ("model", subject.name), profile, final
    )
    profile_given = f" --profile {args.profile}" if args.profile is not None else ""
    print(
        f"shrunk to {len(final.events)} of {first.generated} events "
        f"({fuzzer.tries} tries): {path}\n"
        f"the divergence shown: {page}\n"
        f"replay it: python -m bridge compare {path} --engine {engine}{profile_given}\n"
        f"repeat the search: {again}"
    )
    return 1
