"""Which declared differences explain an engine's divergences (`python -m
bridge diagnose`, issue 21): each scenario the engine fails is compared
again with the model under each single change of the engine's profile
(SPEC 10) and capabilities (bridge/formats/capabilities.py), then under
pairs of profile changes; a change that moves the first divergence later
explains it, and the scenario is followed to its next divergence under
that change. What no change explains is a likely bug.

The changes and the order they are tried in are bridge/checking/changes.py's.
The engine replays each scenario once (bridge/wire/recorded.py keeps its
answers, and is given only lines it was not given before, at its own pace);
each change tried costs a replay of the expected answers up to its first
divergence: from a committed transcript when the profile has
one, or a kept profile's that differs from it only in options the scenario
cannot make matter (bridge/checking/changes.py `stand_in`), and the
capabilities change nothing that is sent; else from the model.
The profile changes are read from model/profile.py: every option whose
values the protocol enumerates (true/false, or a list of strings) is tried
at each of its other values; an option of another type (a map, like
`kind_words`) is not guessed. A capability is tried as lacking first when
the engine's answer leaves out a field it owns (a timed-out render, a
zoom), before any profile change; one that only changes what is sent
(`settle_timeout`, `replies`) is tried after the profile changes, at an
event of its kind.

What each scenario's last replay compared (bridge/checking/coverage.py)
is kept: summed over the replays under the proposal, it is what the run
diagnose made under its proposal compared and delivered.
"""

from __future__ import annotations

import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bridge.checking.changes import Change, Trial, applied, inert, stand_in, tiers
from bridge.checking.compare import Divergence, run
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import add_delivery
from bridge.checking.shrink import Way, cut, diverges_as, marked, simplify, until_fault, way_of
from bridge.checking.verdict import Skipped, lacks_for, within
from bridge.formats import transcript
from bridge.formats.capabilities import described, only_tests
from bridge.formats.layout import expected_path, read_checked
from bridge.formats.profile import agreement
from bridge.runs.corpus import Options, keep, kept_engine, largest_first, make_engine
from bridge.runs.expect import profiles
from bridge.wire.engine import EngineFault, capabilities_of, limits_of, profile_of
from bridge.wire.recorded import Recorded
from bridge.wire.stream import Exchange, exchanges, from_model
from scenarios.format import CONSTANTS, Scenario, ScenarioError


@dataclass(frozen=True)
class Step:
    """A divergence met while following a scenario, and the changes that
    made it vanish (none: no change tried did)."""

    position: int | None
    way: Way
    summary: str
    explained_by: tuple[Change, ...]


@dataclass
class Diagnosis:
    """One scenario followed through its divergences."""

    path: Path
    status: str
    """`agrees` (under the declared profile), `explained` (every divergence
    vanished under the changes in `needed`), `unexplained` (one stayed),
    `SKIPPED`, `BAD`, `FAULT` or `ERROR`."""
    seconds: float = 0.0
    steps: list[Step] = field(default_factory=list)
    needed: tuple[Change, ...] = ()
    reason: str = ""
    replays: int = 0
    """Replays of the expected answers made (from a transcript or the model)."""
    coverage: Coverage | None = None
    """What the replay that decided the status compared (None: none was made)."""


def names(trial: Trial) -> tuple[str, ...]:
    """The capabilities a trial lacks, by name."""
    return tuple(c.name for c in trial.lacks)


def later(found: Divergence | None, than: Divergence) -> bool:
    """Whether a divergence comes after another in the scenario (none at all does)."""
    if found is None:
        return True
    far = 1 << 62
    a = far if found.position is None else found.position
    b = far if than.position is None else than.position
    return a > b or (a == b and found.index > than.index)


class Follower:
    """One scenario, its recorded engine, and the model under profiles."""

    def __init__(self, path: Path, scenario: Scenario, recorded: Recorded, opts: Options) -> None:
        self.path, self.scenario, self.recorded, self.opts = path, scenario, recorded, opts
        self.kept = [p for p in profiles() if expected_path(path, p).exists()]
        """The profiles with a transcript of the scenario."""
        self.replays = 0
        self.coverage: Coverage | None = None
        """What the last replay compared."""
        try:
            if opts.constants is not None:
                within(scenario, opts.constants)
            ready = recorded.start(scenario)
            within(scenario, limits_of(ready.constants, opts.constants, recorded.name))
        except Skipped as skipped:
            raise Skip(str(skipped)) from None
        if ready.unsupported:
            raise Skip("the engine cannot take it (" + "; ".join(ready.unsupported.values()) + ")")
        self.ready = ready
        try:
            lacks_for(scenario, ready, opts.capabilities, recorded.name)
        except Skipped as skipped:
            raise Skip(str(skipped)) from None
        self.base = Trial(
            profile_of(ready.profile, opts.profile, recorded.name),
            capabilities_of(ready.capabilities, opts.capabilities, recorded.name),
        )

    def expected(self, trial: Trial) -> Iterator[Exchange]:
        """The exchanges expected under `trial`: a transcript's when one
        stands in for its profile (`stand_in`) and lacking changes nothing
        sent, else the model's."""
        profile = trial.profile
        if not self.opts.live:
            profile = stand_in(self.scenario, profile, self.kept)
        return exchanges(self.path, self.scenario, profile, self.opts.live, trial.lacks)

    def first(self, trial: Trial) -> Divergence | None:
        """The engine's first divergence from what is expected under `trial`
        (None also when the scenario tests only a capability it lacks)."""
        if only_tests(trial.lacks, self.scenario.notes) is not None:
            count = len(self.scenario.events)
            self.coverage = Coverage(count, skipped=count)
            return None
        return self.replay(trial)

    def replay(self, trial: Trial) -> Divergence | None:
        """The engine's first divergence under `trial`, what was compared kept."""
        self.replays += 1
        self.coverage = Coverage(len(self.scenario.events), lacking=names(trial))
        self.recorded.start(self.scenario)
        result = run(
            self.expected(trial),
            self.recorded,
            self.ready,
            lacks=trial.lacks,
            coverage=self.coverage,
        )
        if result.unsupported is not None:
            raise Skip(f"the engine does not support {result.unsupported}")
        add_delivery(self.scenario, trial.profile, result)
        return result.divergence

    def once(self, trial: Trial) -> Divergence | None:
        """`first`, for a scenario replayed only under `trial`."""
        if only_tests(trial.lacks, self.scenario.notes) is not None:
            raise Skip(f"it tests only what the engine lacks ({described(trial.held)})")
        return self.replay(trial)

    def explain(
        self, trial: Trial, made: tuple[Change, ...], found: Divergence
    ) -> tuple[tuple[Change, ...], Divergence | None, Coverage | None] | None:
        """The change (of the first tier with one) that moves `found`
        furthest, the divergence after it and what its replay compared;
        None when none moves it."""
        for group in tiers(trial, {c.key for c in made}, found):
            best: tuple[tuple[Change, ...], Divergence | None, Coverage | None] | None = None
            for extra in group:
                tried = applied(trial, extra)
                if tried is None:
                    continue
                after = self.first(tried)
                if later(after, found) and (best is None or later(after, best[1] or found)):
                    best = (extra, after, self.coverage)
                    if after is None:
                        return best
            if best is not None:
                return best
        return None

    def follow(self) -> tuple[list[Step], tuple[Change, ...]]:
        """The scenario's divergences in turn, each with what explains it,
        and the changes needed; `coverage` is then what the replay under
        them compared."""
        trial, made = self.base, ()
        found = self.first(trial)
        counted = self.coverage
        steps: list[Step] = []
        while found is not None:
            explained = self.explain(trial, made, found)
            if explained is None:
                steps.append(Step(found.position, way_of(found), found.summary(), ()))
                break
            extra, after, counted = explained
            steps.append(Step(found.position, way_of(found), found.summary(), extra))
            made = tuple(sorted(made + extra))
            trial = applied(self.base, made)  # type: ignore[assignment]
            found = after
        self.coverage = counted
        return steps, made


class Skip(Exception):
    """The engine cannot take the scenario."""


def guarded(path: Path, opts: Options, work: Any) -> Diagnosis:
    """`work(path, scenario, recorded)` with every way a scenario can go
    wrong turned into a verdict that says it."""
    began = time.monotonic()
    try:
        scenario = read_checked(path)
    except ScenarioError as error:
        return Diagnosis(path, "BAD", time.monotonic() - began, reason=str(error))
    recorded = Recorded(kept_engine(opts), scenario)
    count = len(scenario.events)
    stopped = Coverage(count, stopped=True)
    ended = False
    try:
        out: Diagnosis = work(path, scenario, recorded)
        ended = recorded.finish()
    except Skip as why:
        out = Diagnosis(path, "SKIPPED", reason=str(why), coverage=Coverage(count, skipped=count))
    except (ScenarioError, transcript.TranscriptError) as error:
        out = Diagnosis(path, "BAD", reason=str(error), coverage=stopped)
    except EngineFault as fault:
        out = Diagnosis(path, "FAULT", reason=str(fault), coverage=stopped)
    except Exception:
        reason = f"the bridge failed:\n{traceback.format_exc()}"
        out = Diagnosis(path, "ERROR", reason=reason, coverage=stopped)
    finally:
        if not (ended and keep(recorded.engine, opts)):
            recorded.stop()
    out.seconds = time.monotonic() - began
    return out


def _follow(path: Path, scenario: Scenario, recorded: Recorded, opts: Options) -> Diagnosis:
    follower = Follower(path, scenario, recorded, opts)
    steps, needed = follower.follow()
    if not steps:
        status = "agrees"
    else:
        status = "explained" if steps[-1].explained_by else "unexplained"
    return Diagnosis(
        path,
        status,
        steps=steps,
        needed=needed,
        replays=follower.replays,
        coverage=follower.coverage,
    )


def _verify(
    path: Path,
    scenario: Scenario,
    recorded: Recorded,
    opts: Options,
    proposed: Trial,
    extra: tuple[Change, ...] | None,
) -> Diagnosis:
    if inert(scenario, extra, proposed.profile):
        return Diagnosis(path, "agrees")
    follower = Follower(path, scenario, recorded, opts)
    found = follower.once(proposed)
    if found is None:
        return Diagnosis(path, "agrees", replays=1, coverage=follower.coverage)
    step = Step(found.position, way_of(found), found.summary(), ())
    return Diagnosis(path, "unexplained", steps=[step], replays=1, coverage=follower.coverage)


def _shrink_job(
    job: tuple[Diagnosis, Options, Trial, int, float],
) -> tuple[Diagnosis, Scenario | None]:
    """A likely bug shrunk; None when that fails (the bug is still named)."""
    found, opts, profile, tries, seconds = job
    try:
        return found, shrunk_bug(found.path, found, opts, profile, tries, seconds)
    except (ScenarioError, EngineFault):
        return found, None


Job = tuple[Path, Options, Trial | None, tuple[Change, ...] | None]
"""A scenario to follow (no trial) or to verify under a trial proposed,
with the changes of it the scenario was not seen to need (see `inert`)."""


def _job(job: Job) -> Diagnosis:
    path, opts, proposed, extra = job
    if proposed is None:
        return guarded(path, opts, lambda p, s, r: _follow(p, s, r, opts))
    return guarded(path, opts, lambda p, s, r: _verify(p, s, r, opts, proposed, extra))


def each(work: list[Job], jobs: int) -> Iterator[Diagnosis]:
    """Follow or verify each scenario, `jobs` at a time, largest first."""
    yield from largest_first(_job, work, lambda job: job[0], jobs)


def propose(base: Trial, diagnoses: list[Diagnosis]) -> tuple[Trial, dict[Change, list[Path]]]:
    """The profile and capabilities the scenarios ask for: each option at
    the value most scenarios needed, each capability lacked that any
    needed; and, for each change proposed, the scenarios that needed it."""
    votes: Counter[Change] = Counter(c for d in diagnoses for c in d.needed)
    chosen: dict[tuple[str, Any], Change] = {}
    for change, _ in votes.most_common():
        chosen.setdefault(change.key, change)
    made = tuple(sorted(chosen.values()))
    profile = applied(base, made) or base
    needing = {c: sorted(d.path for d in diagnoses if c in d.needed) for c in made}
    return profile, needing


@dataclass
class Report:
    """What `diagnose` found: each scenario followed, the profile proposed
    with the scenarios that needed each change, and the likely bugs."""

    engine: str
    base: Trial
    proposed: Trial
    needing: dict[Change, list[Path]]
    diagnoses: list[Diagnosis]
    bugs: list[tuple[Diagnosis, Scenario | None]]
    """The scenarios still failing under the proposed profile, each shrunk
    (None when it could not be)."""
    seconds: float
    covered: dict[Path, Coverage]
    """What each scenario's replay under the proposal compared (`under`)."""

    def coverage(self) -> Coverage:
        """What the run under the proposal compared, summed over the scenarios."""
        total = Coverage()
        for counted in self.covered.values():
            total += counted
        return total

    @property
    def agreement(self) -> str:
        return agreement(self.proposed.profile)


def shrunk_bug(
    path: Path, found: Diagnosis, opts: Options, trial: Trial, tries: int, seconds: float
) -> Scenario | None:
    """The scenario shrunk while it diverges under `trial` the way it does,
    in at most `tries` replays and `seconds`."""
    scenario = read_checked(path)
    engine = make_engine(opts)
    profile, lacks = trial.profile, trial.lacks
    try:
        ready = engine.start(scenario)
        made = from_model(scenario, profile, strict=False, lacks=lacks)
        result = run(made, engine, ready, lacks=lacks)
        if result.divergence is None:
            return None
        way = way_of(result.divergence)
        start = cut(scenario, result.divergence)
        small, _ = until_fault(
            lambda still: simplify(start, still, seconds, tries),
            diverges_as(
                engine,
                profile,
                way,
                strict=False,
                lacks=lacks,
                accepted=limits_of(ready.constants, opts.constants, engine.name),
            ),
            start,
        )
    finally:
        engine.close()
    notes = {"shrunk_from": path.name, "engine": engine.name, "kept": found.steps[-1].summary}
    return marked(replace(small, generator="bridge diagnose: a likely bug", notes=notes), profile)


def declared(opts: Options) -> Trial:
    """The profile and capabilities the engine declares (or `--profile`,
    `--capabilities`), asked with an empty chat."""
    from model.constants import Constants

    engine = make_engine(opts)
    try:
        empty = Scenario({name: getattr(Constants(), name) for name in CONSTANTS}, [])
        ready = engine.start(empty)
        return Trial(
            profile_of(ready.profile, opts.profile, engine.name),
            capabilities_of(ready.capabilities, opts.capabilities, engine.name),
        )
    finally:
        engine.close()


def extra(followed: Diagnosis, made: set[Change]) -> tuple[Change, ...] | None:
    """The changes proposed beyond those a scenario that agreed under its
    own needed; None when it did not agree so, or needed another."""
    if followed.status == "unexplained" or not set(followed.needed) <= made:
        return None
    return tuple(sorted(made - set(followed.needed)))


def under(proposed: Trial, followed: Diagnosis, verified: Diagnosis | None) -> Coverage | None:
    """What a scenario's replay under `proposed` compared: the verifying
    one's, else the last one following it, whose changes were the proposal's
    or the rest cannot change what is sent (`inert`): it lacks what the
    proposal lacks, though it compared the fields of those it held."""
    if verified is not None and verified.coverage is not None:
        return verified.coverage
    counted = followed.coverage
    if counted is None or counted.skipped:
        return counted
    return replace(counted, lacking=names(proposed))


def diagnose(
    paths: list[Path], opts: Options, jobs: int, shrink_tries: int, shrink_seconds: float
) -> Report:
    """Follow every scenario, propose a profile, check every scenario not
    already seen to agree under exactly that profile, and shrink those
    that still fail (each in at most `shrink_tries` replays and
    `shrink_seconds`)."""
    began = time.monotonic()
    followed = {d.path: d for d in each([(p, opts, None, None) for p in paths], jobs)}
    base = declared(opts)
    proposed, needing = propose(base, list(followed.values()))
    made = set(needing)
    again: list[Job] = [
        (d.path, opts, proposed, extra(d, made))
        for d in followed.values()
        if d.status in ("agrees", "explained", "unexplained") and set(d.needed) != made
    ]
    verified = {d.path: d for d in each(again, jobs)}
    final = [verified.get(d.path, d) for d in followed.values()]
    failing = sorted((d for d in final if d.status == "unexplained"), key=lambda d: d.path)
    work = [(d, opts, proposed, shrink_tries, shrink_seconds) for d in failing]
    shrunk = largest_first(_shrink_job, work, lambda job: job[0].path, jobs)
    bugs = sorted(shrunk, key=lambda bug: bug[0].path)
    ordered = sorted(followed.values(), key=lambda d: paths.index(d.path))
    covered = {d.path: c for d in ordered if (c := under(proposed, d, verified.get(d.path)))}
    seconds = time.monotonic() - began
    return Report(opts.engine, base, proposed, needing, ordered, bugs, seconds, covered)
