"""Which declared differences explain an engine's divergences (`python -m
bridge diagnose`, issue 21): each scenario the engine fails is compared
again with the model under each single change of the engine's profile
(SPEC 10), then under pairs of changes; a change that moves the first
divergence later explains it, and the scenario is followed to its next
divergence under that change. What no change explains is a likely bug.

The engine replays each scenario once (bridge/wire/recorded.py keeps its
answers); each profile tried costs a model replay up to its first
divergence. The changes are read from model/profile.py: every option whose
values the protocol enumerates (true/false, or a list of strings) is
tried at each of its other values; an option of another type (a map, like
`kind_words`) is not guessed.
"""

from __future__ import annotations

import json
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from bridge.checking.compare import Divergence, run
from bridge.checking.shrink import Way, cut, diverges_as, marked, simplify, until_fault, way_of
from bridge.formats import transcript
from bridge.formats.layout import read_checked
from bridge.formats.profile import agreement
from bridge.runs.corpus import Options, largest_first, make_engine
from bridge.wire.engine import EngineFault, profile_of
from bridge.wire.recorded import Recorded
from bridge.wire.stream import exchanges, from_model
from model.profile import TYPES, Profile, from_options, options
from scenarios.format import CONSTANTS, Scenario, ScenarioError


@dataclass(frozen=True, order=True)
class Change:
    """One declared difference tried: a profile option at a value (SPEC 10)."""

    option: str
    value: Any

    def said(self) -> str:
        return f"{self.option}: {json.dumps(self.value)}"


def changes(base: Profile) -> list[Change]:
    """Every change of one option of `base` the option's type enumerates:
    a boolean flipped, each other string of an option that lists them."""
    now = options(base)
    out: list[Change] = []
    for name, kind in TYPES.items():
        if kind is bool:
            out.append(Change(name, not now[name]))
        elif isinstance(kind, tuple):
            out += [Change(name, value) for value in kind if value != now[name]]
    return out


def applied(base: Profile, made: tuple[Change, ...]) -> Profile | None:
    """`base` with the changes made; None when they make no profile."""
    try:
        return from_options({**options(base), **{c.option: c.value for c in made}})
    except ValueError:
        return None


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
    """Model replays made."""


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
        self.replays = 0
        ready = recorded.start(scenario)
        if ready.unsupported:
            raise Skip("the engine cannot take it (" + "; ".join(ready.unsupported.values()) + ")")
        self.ready = ready
        self.base = profile_of(ready.profile, opts.profile, recorded.name)
        recorded.fill([e.line for e in exchanges(path, scenario, self.base, opts.live)])

    def first(self, profile: Profile, stored: bool = False) -> Divergence | None:
        """The engine's first divergence from the model under `profile` (from
        the committed transcript when `stored` and there is one)."""
        self.recorded.start(self.scenario)
        self.replays += 1
        made = (
            exchanges(self.path, self.scenario, profile, self.opts.live)
            if stored
            else from_model(self.scenario, profile, strict=False)
        )
        result = run(made, self.recorded, self.ready)
        if result.unsupported is not None:
            raise Skip(f"the engine does not support {result.unsupported}")
        return result.divergence

    def explain(
        self, profile: Profile, made: tuple[Change, ...], found: Divergence
    ) -> tuple[tuple[Change, ...], Divergence | None] | None:
        """The single change (or else pair) that moves `found` furthest, and
        the divergence after it; None when none moves it."""
        taken = {c.option for c in made}
        singles = [(c,) for c in changes(profile) if c.option not in taken]
        pairs = [a + b for a, b in combinations(singles, 2) if a[0].option != b[0].option]
        for group in (singles, pairs):
            best: tuple[tuple[Change, ...], Divergence | None] | None = None
            for extra in group:
                trial = applied(profile, extra)
                if trial is None:
                    continue
                after = self.first(trial)
                if later(after, found) and (best is None or later(after, best[1] or found)):
                    best = (extra, after)
                    if after is None:
                        return best
            if best is not None:
                return best
        return None

    def follow(self) -> tuple[list[Step], tuple[Change, ...], Profile]:
        """The scenario's divergences in turn, each with what explains it;
        the changes needed, and the profile reached."""
        profile, made = self.base, ()
        found = self.first(profile, stored=True)
        steps: list[Step] = []
        while found is not None:
            explained = self.explain(profile, made, found)
            if explained is None:
                steps.append(Step(found.position, way_of(found), found.summary(), ()))
                break
            extra, after = explained
            steps.append(Step(found.position, way_of(found), found.summary(), extra))
            made = tuple(sorted(made + extra))
            profile = applied(self.base, made)  # type: ignore[assignment]
            found = after
        return steps, made, profile


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
    recorded = Recorded(make_engine(opts), scenario)
    try:
        out: Diagnosis = work(path, scenario, recorded)
    except Skip as why:
        out = Diagnosis(path, "SKIPPED", reason=str(why))
    except (ScenarioError, transcript.TranscriptError) as error:
        out = Diagnosis(path, "BAD", reason=str(error))
    except EngineFault as fault:
        out = Diagnosis(path, "FAULT", reason=str(fault))
    except Exception:
        out = Diagnosis(path, "ERROR", reason=f"the bridge failed:\n{traceback.format_exc()}")
    finally:
        recorded.stop()
    out.seconds = time.monotonic() - began
    return out


def _follow(path: Path, scenario: Scenario, recorded: Recorded, opts: Options) -> Diagnosis:
    follower = Follower(path, scenario, recorded, opts)
    steps, needed, _ = follower.follow()
    if not steps:
        status = "agrees"
    else:
        status = "explained" if steps[-1].explained_by else "unexplained"
    return Diagnosis(path, status, steps=steps, needed=needed, replays=follower.replays)


def _verify(
    path: Path, scenario: Scenario, recorded: Recorded, opts: Options, proposed: Profile
) -> Diagnosis:
    follower = Follower(path, scenario, recorded, opts)
    found = follower.first(proposed)
    if found is None:
        return Diagnosis(path, "agrees", replays=1)
    step = Step(found.position, way_of(found), found.summary(), ())
    return Diagnosis(path, "unexplained", steps=[step], replays=1)


def _shrink_job(
    job: tuple[Diagnosis, Options, Profile, float],
) -> tuple[Diagnosis, Scenario | None]:
    """A likely bug shrunk; None when that fails (the bug is still named)."""
    found, opts, profile, seconds = job
    try:
        return found, shrunk_bug(found.path, found, opts, profile, seconds)
    except (ScenarioError, EngineFault):
        return found, None


def _job(job: tuple[str, Path, Options, Profile | None]) -> Diagnosis:
    what, path, opts, proposed = job
    if what == "follow":
        return guarded(path, opts, lambda p, s, r: _follow(p, s, r, opts))
    return guarded(path, opts, lambda p, s, r: _verify(p, s, r, opts, proposed))  # type: ignore[arg-type]


def each(
    what: str, paths: list[Path], opts: Options, jobs: int, proposed: Profile | None = None
) -> Iterator[Diagnosis]:
    """`follow` or `verify` each scenario, `jobs` at a time, largest first."""
    work = [(what, path, opts, proposed) for path in paths]
    yield from largest_first(_job, work, lambda job: job[1], jobs)


def propose(base: Profile, diagnoses: list[Diagnosis]) -> tuple[Profile, dict[Change, list[Path]]]:
    """The profile the scenarios ask for: each option at the value most
    scenarios needed; and, for each change proposed, the scenarios that
    needed it."""
    votes: Counter[Change] = Counter(c for d in diagnoses for c in d.needed)
    chosen: dict[str, Change] = {}
    for change, _ in votes.most_common():
        if change.option not in chosen:
            chosen[change.option] = change
    made = tuple(sorted(chosen.values()))
    profile = applied(base, made) or base
    needing = {c: sorted(d.path for d in diagnoses if c in d.needed) for c in made}
    return profile, needing


@dataclass
class Report:
    """What `diagnose` found: each scenario followed, the profile proposed
    with the scenarios that needed each change, and the likely bugs."""

    engine: str
    base: Profile
    proposed: Profile
    needing: dict[Change, list[Path]]
    diagnoses: list[Diagnosis]
    bugs: list[tuple[Diagnosis, Scenario | None]]
    """The scenarios still failing under the proposed profile, each shrunk
    (None when it could not be)."""
    seconds: float

    @property
    def agreement(self) -> str:
        return agreement(self.proposed)


def shrunk_bug(
    path: Path, found: Diagnosis, opts: Options, profile: Profile, seconds: float
) -> Scenario | None:
    """The scenario shrunk while it diverges under `profile` the way it does."""
    scenario = read_checked(path)
    engine = make_engine(opts)
    try:
        ready = engine.start(scenario)
        result = run(from_model(scenario, profile, strict=False), engine, ready)
        if result.divergence is None:
            return None
        way = way_of(result.divergence)
        start = cut(scenario, result.divergence)
        small, _ = until_fault(
            lambda still: simplify(start, still, seconds),
            diverges_as(engine, profile, way, strict=False),
            start,
        )
    finally:
        engine.close()
    notes = {"shrunk_from": path.name, "engine": engine.name, "kept": found.steps[-1].summary}
    return marked(replace(small, generator="bridge diagnose: a likely bug", notes=notes), profile)


def declared(opts: Options) -> Profile:
    """The profile the engine declares (or `--profile`), asked with an empty chat."""
    from model.constants import Constants

    engine = make_engine(opts)
    try:
        empty = Scenario({name: getattr(Constants(), name) for name in CONSTANTS}, [])
        return profile_of(engine.start(empty).profile, opts.profile, engine.name)
    finally:
        engine.close()


def diagnose(paths: list[Path], opts: Options, jobs: int, shrink_seconds: float) -> Report:
    """Follow every scenario, propose a profile, check every scenario not
    already seen to agree under exactly that profile, and shrink those
    that still fail (`shrink_seconds` each)."""
    began = time.monotonic()
    followed = {d.path: d for d in each("follow", paths, opts, jobs)}
    base = declared(opts)
    proposed, needing = propose(base, list(followed.values()))
    made = set(needing)
    again = [
        d.path
        for d in followed.values()
        if d.status in ("agrees", "explained", "unexplained") and set(d.needed) != made
    ]
    verified = {d.path: d for d in each("verify", again, opts, jobs, proposed)}
    final = [verified.get(d.path, d) for d in followed.values()]
    failing = sorted((d for d in final if d.status == "unexplained"), key=lambda d: d.path)
    work = [(d, opts, proposed, shrink_seconds) for d in failing]
    shrunk = largest_first(_shrink_job, work, lambda job: job[0].path, jobs)
    bugs = sorted(shrunk, key=lambda bug: bug[0].path)
    ordered = sorted(followed.values(), key=lambda d: paths.index(d.path))
    return Report(opts.engine, base, proposed, needing, ordered, bugs, time.monotonic() - began)
