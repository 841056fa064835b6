"""Generated scenarios for any engine, a divergence of each cause shrunk
(`python -m bridge fuzz`).

Hypothesis draws a history's constants and one seed per event; each event is
drawn from its seed by the shared strategies' event draws
(scenarios/strategies.py: every event kind, events the state does not
allow, replies, zooms, multibyte texts, `\\r`, `\\r\\n`, U+2028, big and
empty texts; bridge/runs/fuzz_draws.py) under the profile the engine
declares (or `--profile`), and answered by the model as it is drawn. Each
history is then replayed through the engine and compared with the model's
answers (bridge/checking/compare.py `run`), in one engine process for all
of them when the engine takes sessions (bridge/PROTOCOL.md). The first divergence is shrunk
(by Hypothesis over the history, then by removing events, dropping the
oldest messages and making the constants smaller, bridge/checking/shrink.py),
each try counting only when it diverges first with the provisional
signature of the history found (bridge/checking/causes.py);
bridge/cli/fuzz.py writes it as a scenario with its transcript and its HTML
page, and reports it as `compare` reports it, with its cause.

Then the search goes on, in rounds (each with a seed of its own,
`round_seed`), for divergences of other causes, until its time or its
histories are spent: a history whose divergence is of a known cause (one
listed with `--known-causes`, or one found before; causes.py `which`; a
listed rule slip that explains it, told by model replays alone, slips.py) is
replayed again without the event where that cause showed (`DROPS` times at
most), so that a difference the engine shows in most histories hides
nothing behind it, and is passed over if nothing else diverges. A shrink
that ends at a known cause after all is passed over too. A run says its
throughput and the seed that repeats it.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from unittest import SkipTest

from bridge.checking.causes import Replays, Signature, signature, which
from bridge.checking.compare import Divergence, run
from bridge.checking.coverage import Coverage
from bridge.checking.shrink import Way, cut, simplify, size_of, way_of
from bridge.checking.slips import Failure, by_id
from bridge.formats.capabilities import Capability, lacking
from bridge.formats.limits import NONE, Limits
from bridge.formats.profile import agreement
from bridge.formats.usage import UsageError
from bridge.runs.corpus import Options
from bridge.wire.engine import Engine, EngineFault, capabilities_of, limits_of, profile_of
from bridge.wire.stream import Exchange, from_model
from model.constants import Constants
from model.profile import Profile
from scenarios.format import Scenario

if TYPE_CHECKING:
    from hypothesis import Phase
    from hypothesis.database import ExampleDatabase

DEFAULT_SECONDS = 60.0
"""How long a run without `--seconds` or `--histories` looks for a divergence."""

STARTS = 4
"""How many diverging histories shrinking starts from (see `fuzz`)."""

HYPOTHESIS_SHARE = 8
"""Hypothesis's own shrinking has one part in this many of the budget: its
shrinker takes a history's length and seeds only so far, the bridge's own
passes the rest."""

BEAT_SECONDS = 10.0
"""At most this long between two progress lines."""

DROPS = 8
"""How many times a history is replayed again without the event a known
cause showed at, before it is passed over."""

SETTLED = 2
"""After this many shrinks of one provisional signature ended at known
causes, its divergences are taken as known without a replay."""


class Halt(Exception):
    """Raised inside a history to end the search: out of time, or an engine fault."""


class Diverged(Exception):
    """Raised inside a history whose replay diverged, so that Hypothesis shrinks it."""


class Spent(BaseException):
    """Raised inside a history once Hypothesis's share of the shrinking
    budget is spent: no Exception, so that it ends Hypothesis's run at once
    (as only an interruption else does) instead of its shrinker trying
    on, each try drawn for nothing. Not with an example database: a run
    ended so does not keep there what it shrank to, and the next run's
    first history would not be the one found."""


@dataclass
class Found:
    """A diverging history: its events up to the divergence, how many it had,
    and when it was found."""

    scenario: Scenario
    divergence: Divergence
    seconds: float
    generated: int


@dataclass
class Fuzzer:
    """One engine, kept started across histories, and what the run has seen."""

    engine: Engine
    profile: Profile
    options: Options
    seconds_given: float | None
    """The search's time; None for no limit."""
    shrink_tries: int
    """Shrinking's replays, from the first divergence: Hypothesis's share,
    then `simplify`'s (counted, so that a busy machine shrinks as far)."""
    shrink_seconds: float = math.inf
    """Shrinking's time at most, divided likewise."""
    lacks: tuple[Capability, ...] = ()
    """The capabilities the engine lacks (declared, or `--capabilities`):
    their events are not generated nor sent, their fields not compared."""
    accepted: Limits = NONE
    """The constants the engine accepts (declared, or `--constants`): no
    history is drawn outside them, and a shrunk one outside is not sent."""
    began: float = field(default_factory=time.monotonic)
    histories: int = 0
    replayed: int = 0
    """Of `histories`, those replayed from the example database (`replay_kept`)."""
    events: int = 0
    """Events compared in the histories searched."""
    generated: int = 0
    """Events of every history searched, those the engine could not take too."""
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
    known: list[Signature] = field(default_factory=list)
    """The causes to pass over (bridge/checking/causes.py): those listed
    (`--known-causes`), then those found."""
    shrunk: dict[Signature, Scenario | None] = field(default_factory=dict)
    """The shrunk scenario of each cause found, to tell a new one from it (causes.py `alike`)."""
    passed: Counter[str] = field(default_factory=Counter)
    """Diverging histories passed over, by the id of the known cause each showed."""
    past: int = 0
    """Replays of a history made again without the event a known cause showed at."""
    settled: Counter[Signature] = field(default_factory=Counter)
    """Shrinks that ended at a known cause, by their provisional signature."""
    searched: float = 0.0
    """Seconds spent searching in the rounds before this one."""
    rules: bool = True
    """Whether the engine names SPEC 4.1's rules in its refusals (as it said at its last start)."""
    round_began: float = 0.0

    def seconds(self) -> float:
        return time.monotonic() - self.began

    def searching(self) -> bool:
        return self.first is None

    def way(self) -> Way:
        """How the first diverging history diverged, in the words of shrink.py."""
        assert self.first is not None
        return way_of(self.first.divergence)

    def key(self) -> Signature:
        """The provisional signature of the first diverging history: what
        Hypothesis's and the bridge's shrinking keep (causes.py)."""
        assert self.first is not None
        return signature(self.first.divergence)

    def next_round(self) -> None:
        """Forget the divergence found, to search for one of another cause."""
        self.searched = self.search_seconds()
        self.first, self.found, self.tries, self.smallest = None, [], 0, 0
        self.round_began = self.seconds()

    def search_seconds(self) -> float:
        """Seconds spent searching (not shrinking) so far."""
        now = self.first.seconds if self.first is not None else self.seconds()
        return self.searched + now - self.round_began

    def probe(self) -> Replays:
        """The engine as a causes.py `Probe`: whether a scenario diverges so."""
        return Replays(self.engine, self.profile, self.lacks, accepted=self.accepted)

    def known_cause(self, scenario: Scenario, found: Divergence) -> Signature | None:
        """The known cause a divergence of `scenario` is of (causes.py
        `which`: one replay of what its cause keeps), or None. A provisional
        signature that shrank to known causes SETTLED times is taken as known
        without a replay: a reduction that hides the cause it keeps would
        have every search of it end in a wasted shrink."""
        named = signature(found)
        slipped = self.known_slip(scenario, found)
        if slipped is not None:
            return slipped
        if self.settled[named] >= SETTLED:
            return next(k for k in self.known if k.provisional() == named)
        return which(cut(scenario, found), named, self.known, self.probe())

    def known_slip(self, scenario: Scenario, found: Divergence) -> Signature | None:
        """The known rule slip (a `slip:` id listed) that explains a
        divergence (bridge/checking/slips.py: the model with it agrees with
        every answer up to there; model replays, no engine, no shrink), or None."""
        listed = [(k, by_id().get(k.slip)) for k in self.known if k.slip]
        if found.answer is None or not any(slip for _, slip in listed):
            return None
        failure = Failure(
            "", cut(scenario, found), self.profile, self.lacks, found.index, found.answer
        )
        failure.rules = self.rules
        return next((k for k, slip in listed if slip and failure.explained_by(slip)), None)

    def effective(
        self, scenario: Scenario, exchanges: list[Exchange] | None = None
    ) -> tuple[Scenario, Divergence | None]:
        """The history and its first divergence of a cause not known: while
        the history diverges with a known cause, it is replayed again
        without the event that cause showed at (up to DROPS times), so that
        a known difference seen early in most histories hides nothing
        behind it. None when it has none."""
        found = self.replay(scenario, exchanges=exchanges)
        dropped = 0
        while found is not None and self.known:
            known = self.known_cause(scenario, found)
            if known is None:
                break
            if self.searching():
                self.passed[known.id] += 1
            if found.position is None or dropped == DROPS:
                return scenario, None
            events = [e for k, e in enumerate(scenario.events) if k != found.position]
            scenario = replace(scenario, events=events, lines=None)
            dropped += 1
            self.past += 1
            found = self.replay(scenario, counted=False)
        return scenario, found

    def out_of_time(self) -> bool:
        return self.seconds_given is not None and self.seconds() >= self.seconds_given

    def shrinking_left(self) -> tuple[int, float]:
        """The tries and seconds of the shrinking budget left."""
        assert self.first is not None
        seconds = self.first.seconds + self.shrink_seconds - self.seconds()
        return self.shrink_tries - self.tries, seconds

    def shrink_over(self) -> bool:
        """Whether Hypothesis's part of the shrinking budget (HYPOTHESIS_SHARE) is spent."""
        if self.first is None:
            return False
        tries, seconds = self.shrinking_left()
        kept = 1 - 1 / HYPOTHESIS_SHARE
        return tries < self.shrink_tries * kept or seconds < self.shrink_seconds * kept

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

    def coverage(self) -> Coverage:
        """What the search compared, as a corpus run counts it: the events of
        the histories searched, and of those the events compared."""
        return Coverage(self.generated, self.events, ended=self.histories)

    def rate(self) -> float:
        return self.events / (self.search_seconds() or 1e-9)

    def replay(
        self,
        scenario: Scenario,
        keep_going: bool = True,
        exchanges: list[Exchange] | None = None,
        counted: bool = True,
    ) -> Divergence | None:
        """The engine's first divergence from the model on `scenario`, or None
        (also when the engine cannot take it), the model's answers given as
        `exchanges` or made now. With `keep_going` every answer is read, so
        that a session engine can take the next scenario. A replay `counted`
        is a history searched, or a try of shrinking."""
        if counted and self.searching():
            self.generated += len(scenario.events)
        if self.accepted.broken(scenario.constants) is not None:
            self.skipped += self.searching()
            return None
        ready = self.engine.start(scenario)
        self.rules = ready.rule_names
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
            from_model(scenario, self.profile, strict=False, lacks=self.lacks)
            if exchanges is None
            else exchanges,
            self.engine,
            ready,
            None,
            keep_going,
            self.beat,
            self.lacks,
        )
        if result.unsupported is not None:
            self.skipped += self.searching()
            return None
        if counted and self.searching():
            self.histories += 1
            self.events += len(result.sent)
        elif counted:
            self.tries += 1
        self.beat()
        return result.divergence

    def check(self, scenario: Scenario, exchanges: list[Exchange] | None = None) -> None:
        """Replay one generated history (the model's `exchanges` of it, if
        made): Diverged when it diverges, Halt when the run is over (on time,
        or after an engine fault)."""
        try:
            scenario, found = self.effective(scenario, exchanges)
        except EngineFault as fault:
            self.fault, self.faulted = fault, scenario
            raise Halt from None
        if found is None or not (self.searching() or signature(found) == self.key()):
            return
        here = Found(cut(scenario, found), found, self.seconds(), len(scenario.events))
        self.first = self.first or here
        self.found.append(here)
        self.diverged(here.scenario)
        raise Diverged

    def diverges(self, scenario: Scenario) -> bool:
        """Whether the scenario diverges first with the provisional signature
        of the history found (causes.py)."""
        found = self.replay(scenario)
        if found is None or signature(found) != self.key():
            return False
        self.diverged(scenario)
        return True

    def diverged(self, scenario: Scenario) -> None:
        events = len(scenario.events)
        self.smallest = min(self.smallest, events) if self.smallest else events


def replay_kept(fuzzer: Fuzzer, seed: int, max_events: int, database: ExampleDatabase) -> None:
    """Replay the histories that diverged before and were kept in `database`
    (by any run or shard sharing it), until one still diverges (then it is
    the one found), the time is up, or the engine faults; counted in
    `fuzzer.replayed`. `search` then generates new ones."""
    from hypothesis import Phase

    hypothesis(fuzzer, seed, None, max_events, database, [Phase.reuse, Phase.shrink])
    fuzzer.replayed = fuzzer.histories


def round_seed(seed: int, round: int) -> int:
    """The seed of a search's `round`-th round (the first is `seed`): each
    round after a cause found draws other histories, the same every time."""
    return seed if round == 0 else (seed + round * 0x9E3779B9) % (1 << 32)


def search(
    fuzzer: Fuzzer,
    seed: int,
    histories: int | None,
    max_events: int,
    database: ExampleDatabase | None = None,
) -> None:
    """Generate histories with Hypothesis and replay each, until one diverges
    with a cause not known (then Hypothesis shrinks it, within its share of
    the shrinking budget), the time is up, `histories` ran, or the engine
    faults. With a `database`, the one found is kept there (`replay_kept`
    replays those first)."""
    from hypothesis import Phase

    hypothesis(fuzzer, seed, histories, max_events, database, [Phase.generate, Phase.shrink])


def hypothesis(
    fuzzer: Fuzzer,
    seed: int,
    histories: int | None,
    max_events: int,
    database: ExampleDatabase | None,
    phases: list[Phase],
) -> None:
    """One Hypothesis run of `phases` over the histories (`search`)."""
    from hypothesis import HealthCheck, Verbosity, given, settings, strategies
    from hypothesis import seed as with_seed
    from hypothesis.errors import Flaky, Unsatisfiable

    from bridge.runs.fuzz_draws import accepted_constants, drawn, split_seeds
    from scenarios.strategies import below

    # The length first (up to max_events, evenly), then the events' seeds as
    # one string of bytes: one choice for Hypothesis, which shortens it from
    # the end and lowers its bytes.
    seeds = below(max_events + 1).flatmap(
        lambda n: strategies.binary(min_size=4 * n, max_size=4 * n).map(split_seeds)
    )

    @settings(
        max_examples=histories or 10**9,
        derandomize=False,
        database=database,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
    )
    # Inside the settings: `seed` alone sets no database (Hypothesis's rule).
    @with_seed(seed)
    @given(accepted_constants(fuzzer.accepted), seeds)
    def history(constants: Constants, events: list[int]) -> None:
        if fuzzer.fault is not None or (fuzzer.searching() and fuzzer.out_of_time()):
            raise Halt
        if fuzzer.shrink_over():
            if database is None:
                raise Spent
            return  # every try passes: Hypothesis ends its shrink and keeps it in the database
        scenario, exchanges = drawn(constants, events, fuzzer.profile, fuzzer.lacks)
        fuzzer.check(replace(scenario, seed=seed), exchanges)

    try:
        with without_local_constants():
            history()
    except (Halt, Diverged, Flaky, Spent):
        pass  # what was found is in `fuzzer`; Flaky: shrinking was cut short
    except SkipTest:
        pass  # no history ran: a database that keeps none for this search
    except Unsatisfiable:
        raise UsageError(too_few(fuzzer.accepted)) from None


@contextmanager
def without_local_constants() -> Iterator[None]:
    """Hypothesis's draws without the literals it collects from the modules
    it takes for the user's own (Hypothesis 6.131 and later mix them into
    its draws): those are the modules loaded so far and not installed, so
    the histories of a seed would differ between a clone and the wheel or
    the zipapp, and after another command ran in the same process (`laws`
    loads the laws' modules). A seed repeats a run only if no such literal
    is drawn. Where Hypothesis has no such collection, nothing changes."""
    from hypothesis.internal.conjecture import providers

    collect = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if collect is None or cache is None:
        yield
        return
    none = providers.Constants()
    cache.clear()
    providers._get_local_constants = lambda: none
    try:
        yield
    finally:
        providers._get_local_constants = collect
        cache.clear()


def too_few(accepted: Limits) -> str:
    """What a fuzz run says of constants accepted that it cannot draw histories within."""
    from bridge.runs.fuzz_draws import MOST_NODE

    return (
        f"the constants the engine accepts ({accepted}) leave too few to draw "
        f"histories with (NODE {MOST_NODE} at most, SPEC 7's bounds)"
    )


def shrink_starts(fuzzer: Fuzzer) -> list[Scenario]:
    """The diverging histories shrinking starts from: the first found, then
    the smallest Hypothesis tried, STARTS at most. Removing events from one
    diverging history can stop at a larger scenario than from another."""
    assert fuzzer.first is not None
    starts = [fuzzer.first.scenario]
    for other in sorted(fuzzer.found, key=lambda f: size_of(f.scenario)):
        if len(starts) < STARTS and other.scenario not in starts:
            starts.append(other.scenario)
    return starts


def smallest(fuzzer: Fuzzer, starts: list[Scenario], still: Callable[[Scenario], bool]) -> Scenario:
    """Each start simplified while `still` holds, the first with half the
    shrinking budget left (it is the one found, and simplify stops early
    where no pass changes it), each other with an equal share of the rest;
    the smallest scenario kept."""
    shrunk = []
    for k, start in enumerate(starts):
        tries, seconds = fuzzer.shrinking_left()
        share = 2 if k == 0 and len(starts) > 1 else len(starts) - k
        shrunk.append(simplify(start, still, seconds / share, max(tries, 0) // share))
    return min(shrunk, key=size_of)


def started(
    subject: Engine,
    options: Options,
    seconds: float | None,
    shrink_tries: int,
    shrink_seconds: float = math.inf,
) -> Fuzzer:
    """A fuzzer of the engine, started once to learn its profile,
    capabilities and the constants it accepts."""
    from bridge.runs.fuzz_draws import MOST_NODE
    from model.constants import Constants
    from scenarios.strategies import constants_dict

    ready = subject.start(Scenario(constants_dict(Constants()), [], "bridge fuzz"))
    profile = profile_of(ready.profile, options.profile, subject.name)
    held = capabilities_of(ready.capabilities, options.capabilities, subject.name)
    accepted = limits_of(ready.constants, options.constants, subject.name)
    if accepted.least("node") > MOST_NODE:
        raise UsageError(too_few(accepted))
    return Fuzzer(
        subject, profile, options, seconds, shrink_tries, shrink_seconds, lacking(held), accepted
    )
