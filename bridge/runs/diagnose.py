"""Which declared differences explain an engine's divergences (`python -m
bridge diagnose`, issues 21 and 34), and which divergences are likely bugs.

The run, in phases:

1. **Follow**, in rounds, the smallest scenarios first: each scenario of a
   round is followed through its divergences (bridge/runs/follow.py) from
   the proposal the rounds before made (the declared profile and
   capabilities in the first). The rounds grow (`jobs`, `jobs`, then twice
   the round before), so that the small scenarios of the first rounds find
   the differences and the large ones after them mostly agree at once, in
   one replay each. A change made while following may set back an option
   the proposal had changed. A symptom (bridge/checking/changes.py
   `symptom`) that `KNOWN` scenarios of earlier rounds showed with no change
   explaining it is tried, in later rounds, only with the changes it
   concerns: a bug seen in forty scenarios is searched in full in a few.
2. **Propose**: each option at the value the most scenarios needed, the
   declared value on a tie; each capability lacked that any needed. A
   guessed value that another option moved as far (bridge/runs/follow.py
   `Follower.alike`: a given line one byte over NODE installed fits a
   tolerance of 1.02 and `overlong: kept` alike) votes only once the
   rounds are over, and only where the proposal holds none of them: a
   wrong guess taken early would be where every later scenario starts.
3. **Check** each scenario again under the proposal, unless its last
   replay was under it, or what the proposal adds to the trial it agreed
   under cannot change its replay (bridge/checking/changes.py `inert`).
   What fails is a likely bug.
4. **Doubt** (`doubtful`): the rules that tell a difference from a bug.
   - Only a scenario that the changes it needed make agree from end to end
     votes in phase 2: changes that explained the first divergences of a
     scenario whose later one no change explains are no evidence.
   - A capability that owns no field and whose events are withheld
     without it (`settle_timeout`) is tried only where the engine answers
     such an event as unsupported: withholding events explains any
     divergence at them, a bug's too. (One that owns a field, `zoom`, is
     tried where that field differs.) A capability is lacked only where
     what it owns is never right (issue 40): not tried at a divergence
     after the engine got it right in that scenario (bridge/checking/compare.py
     `rightly`), unless the engine left the field out or answered
     unsupported; never proposed when it got it right in any scenario (a
     compaction view right until a bug shows is no missing view).
   - A proposed change is withdrawn when every symptom it explained is a
     bug's. A symptom is a bug's when it shows,
     unexplained, in more likely bugs than the scenarios that needed it: a
     bug shows alike wherever it shows, and a change that explains a few of
     its places explains part of it away (an engine offering one leaf
     beyond AHEAD looks like `ahead_in_wait: false` while a turn waits, and
     like nothing SPEC allows the rest of the time); and when as many
     likely bugs as needed it show that symptom the other way round under
     the proposal (`mirrored`: with no AHEAD at all the model offers the
     leaves such an engine still holds back); and when as many scenarios
     as needed it showed, while followed, a symptom it explained there and
     then that symptom the other way round under it (`turned`: no AHEAD
     explained a leaf offered early, and the same scenario's engine then
     held back a leaf the model offered). A change that also explained
     a symptom no likely bug shows is kept: symptoms are coarse, and a real
     difference (`retry: "tick"`) can share one with a bug.
   - A proposed change is also withdrawn when the engine's own answers
     contradict it (`contradicted`): as many scenarios as needed it, which
     the engine agreed with from end to end under a trial without it,
     diverge earlier under it (each such likely bug replayed with each
     difference of the proposal undone in turn). An engine that does
     what SPEC says all through a scenario where the change alters what is
     expected does not do what the change says (a free leaf not built at
     once looks like `free_leaves: "queued"` at some messages, and like
     nothing SPEC allows at others). The proposal without the withdrawn
     changes is checked again (phase 3), once.
   The likely bugs are then named as `corpus` names the causes of its
   FAILs (bridge/runs/triage.py, `grouped`): each replayed once under the
   proposal as `corpus` checks a scenario, the model's side only
   (bridge/runs/corpus.py `Options.trial`); the FAILs one rule slip of the
   model explains are one cause named by it ("your engine agrees with SPEC
   on all 45 of these if ..."), the others grouped by where they first
   diverge (bridge/checking/causes.py); each cause's shrunk scenario
   written to --regressions as `corpus` writes it (in at most
   `--shrink-tries` replays, the shrinks ending as `corpus`'s do, by
   `triage.ENDING` times that replay). Two likely bugs of each cause (`SAMPLES`) are replayed with
   each difference of the proposal from SPEC undone in turn (an option set
   back to its declared value, or to SPEC's when the proposal kept the
   declared one; a capability held again): one whose undoing moves the
   divergence later is named beside the cause ("it comes later with
   `retry: "message"` (SPEC's) than with your declared `retry: "tick"`").
   A likely bug no change explains is a difference no option covers, or a
   bug.

The proposal is said on stderr each time it grows (a progress line), and
the engine is never told a trial: its declared profile and capabilities
are checked against `--profile` and `--capabilities` only, never against
a hypothesis (a declaring engine never FAULTs for one).

The cost: one engine replay per scenario, and per scenario the replays of
the expected answers its divergences need: none beyond the one when it
agrees under the proposal of the rounds before; at a divergence at most
one per value of each option and capability, plus one per pair of an
option the divergence concerns with any other (bridge/checking/changes.py
`tiers`), the first tier that explains it ending the search. So it grows
with the number of option values times the scenarios that find a
difference or a new symptom, not with the corpus: O(values) a divergence,
O(concerned x values) for the pairs, where every pair of options would be
O(values^2). Naming the likely bugs costs what `corpus` spends on as many
FAILs: one more engine replay each, the rule slips tried, and the shrinks.

A progress line is written every 10 s (bridge/runs/progress.py); Ctrl-C,
SIGTERM (a KeyboardInterrupt, bridge/cli) or the time budget (`seconds`)
end the run with what it found so far, and the report says where it stopped.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bridge.checking.causes import Cause
from bridge.checking.changes import LACKS, Change, Trial, applied, mirrored
from bridge.checking.coverage import Coverage
from bridge.checking.verdict import Verdict
from bridge.formats.kit import shown
from bridge.formats.profile import SPEC, agreement
from bridge.runs import progress, triage
from bridge.runs.corpus import Options, Workers, check_all, make_engine
from bridge.runs.corpus import failing as corpus_failing
from bridge.runs.follow import Diagnosis, checked, followed, guarded, names
from bridge.runs.progress import Ticker, estimate
from bridge.wire.engine import capabilities_of, profile_of
from scenarios.format import CONSTANTS, Scenario

FOLLOWED = ("agrees", "explained", "unexplained")
"""The statuses of a scenario that was replayed to a verdict."""

FAULTS = ("BAD", "FAULT", "ERROR")
"""The statuses of a scenario that could not be replayed to a verdict (bad
input, an engine fault, the bridge failing): the run then exits 2."""

SAMPLES = 2
"""How many likely bugs of one cause are tried for contradicted differences."""
KNOWN = 2
"""After this many scenarios showed a symptom no change explained, later
rounds try only the changes it concerns on it (a bug seen in forty
scenarios is searched in full in the first few)."""


def propose(
    base: Trial, diagnoses: list[Diagnosis], settled: bool = True
) -> tuple[Trial, dict[Change, list[Path]]]:
    """The profile and capabilities the scenarios ask for (see the module's
    docstring, phase 2): never a capability lacked that the engine got
    right in some scenario; and, for each change proposed, the scenarios
    that needed it. A guessed value needed where other options did as well
    (`Step.alternatives`) votes only when the proposal of the other votes
    holds none of them, and only once `settled` (the rounds over: until
    then the scenarios still to follow may tell which it is)."""
    voting = [d for d in diagnoses if d.status == "explained"]
    right = {name for d in diagnoses for name in d.right}
    alike = [s for d in voting for s in d.steps if s.alternatives]
    softly = {
        (d.path, c) for d in voting for s in d.steps if s.alternatives for c in s.explained_by
    }
    votes: Counter[Change] = Counter(
        c
        for d in voting
        for c in d.needed
        if (c.option != LACKS or c.value not in right) and (d.path, c) not in softly
    )
    made = chosen(base, votes)
    if settled:
        held = applied(base, made) or base
        votes.update(
            c
            for s in alike
            if not any(holds(held, option) for option in (s.explained_by, *s.alternatives))
            for c in s.explained_by
        )
        made = chosen(base, votes)
    proposed = applied(base, made) or base
    needing = {c: sorted(d.path for d in voting if c in d.needed) for c in made}
    return proposed, needing


def chosen(base: Trial, votes: Counter[Change]) -> tuple[Change, ...]:
    """Each option at the value the most votes ask for (the declared value
    on a tie), a tolerance at the greatest asked for; each capability lacked
    that any vote asks for: the changes from `base`."""
    by_key: dict[tuple[str, Any], list[Change]] = {}
    for change in sorted(votes):
        by_key.setdefault(change.key, []).append(change)
    out = []
    for key, offered in by_key.items():
        most = max(votes[c] for c in offered)
        winners = [c for c in offered if votes[c] == most]
        if key[0] == "tolerance":
            # Each tolerance needed is the least some line fits in (guess_tolerance
            # only offers more): the greatest needed holds for every one.
            winners = [max(offered, key=lambda c: c.value)]
        if key[0] != LACKS and any(c.value == getattr(base.profile, c.option) for c in winners):
            continue
        out.append(winners[0])
    return tuple(c for c in out if c.option == LACKS or c.value != getattr(base.profile, c.option))


def holds(trial: Trial, made: tuple[Change, ...]) -> bool:
    """Whether `trial` has the changes made: each option at its value (a
    tolerance at it or above: a line that fits one fits any greater), each
    capability lacked."""
    return all(
        c.value not in trial.held
        if c.option == LACKS
        else getattr(trial.profile, c.option) >= c.value
        if c.option == "tolerance"
        else getattr(trial.profile, c.option) == c.value
        for c in made
    )


@dataclass
class Report:
    """What `diagnose` found: each scenario followed, the profile proposed
    with the scenarios that needed each change, and the likely bugs."""

    engine: str
    base: Trial
    proposed: Trial
    needing: dict[Change, list[Path]]
    diagnoses: list[Diagnosis]
    bugs: list[Diagnosis]
    """The scenarios still failing under the proposed profile (each cause's
    shrunk scenario is in `causes`)."""
    seconds: float
    covered: dict[Path, Coverage]
    """What each scenario's replay under the proposal compared (`under`)."""
    stopped: str | None = None
    """Why the run ended before its end (interrupted, out of time), if it did."""
    unfinished: list[Path] = field(default_factory=list)
    """The scenarios not followed, or not checked under the proposal, when it stopped."""
    doubtful: dict[Change, tuple[tuple[Any, ...], int]] = field(default_factory=dict)
    """Changes needed but not proposed (`doubtful`): each with the symptom
    it explained and how many likely bugs show it unexplained."""
    causes: list[Cause] = field(default_factory=list)
    """The likely bugs as `corpus`'s causes (`grouped`), named by their
    scenarios as `corpus` names them (bridge/formats/kit.py `shown`); the
    cause of the most first."""
    unnamed: dict[Path, tuple[str, str]] = field(default_factory=dict)
    """Likely bugs whose replay while they were named ended otherwise than
    in a FAIL (`grouped`), each with its status and why (`FAULT`, the first
    line of its reason): grouped apart, not shrunk."""
    options: Options | None = None
    """How the engine was run, and under the proposal where it is not the
    declaration (`Options.trial`): the commands a cause's lines repeat."""

    def coverage(self) -> Coverage:
        """What the run under the proposal compared, summed over the scenarios."""
        total = Coverage()
        for counted in self.covered.values():
            total += counted
        return total

    @property
    def agreement(self) -> str:
        return agreement(self.proposed.profile)

    def contradicted(self) -> dict[Change, list[Path]]:
        """Each difference of the proposal some likely bug contradicts, with those bugs."""
        out: dict[Change, list[Path]] = {}
        for d in self.bugs:
            for change in d.contradicts:
                out.setdefault(change, []).append(d.path)
        return out


def grouped(
    failing: list[Diagnosis],
    opts: Options,
    trial: Trial,
    shrinking: triage.Shrinking,
    until: float = math.inf,
    done: list[Path] | None = None,
    unnamed: dict[Path, tuple[str, str]] | None = None,
) -> tuple[list[Cause], bool]:
    """The likely bugs as `corpus`'s causes (bridge/runs/triage.py): each
    replayed under the proposal `trial` as `corpus` checks a scenario (one
    replay each, `jobs` at a time, rule slips tried on each FAIL as it
    comes), the FAILs one rule slip explains one cause named by it, the
    others grouped by where they first diverge; each cause's shrunk
    scenario written to --regressions as `corpus` writes it, the shrinks
    ending by `triage.ENDING` times that replay, or within the seconds
    `shrinking` gives (--shrink-seconds), and all by `until` (the end
    --seconds sets, `time.monotonic`). Each scenario replayed is added to
    `done` (the run's progress line counts them); one that ends otherwise
    than in a FAIL (its replay faulted, or agreed) to `unnamed`, with how
    (`Report.unnamed`). What `corpus` says
    meanwhile goes to stderr, with the progress lines:
    the report says the causes at the end. A likely bug that no longer
    fails so (its replay faulted) is left out of them (bridge/outputs/diagnosis.py
    `causes` says it apart). Also whether an interruption (Ctrl-C, SIGTERM)
    cut the grouping short."""
    under = replace(opts, trial=trial, quiet=True)
    judge = triage.Judge(shrinking.jobs)
    began = time.monotonic()
    verdicts = []
    paths = [d.path for d in failing]
    with contextlib.redirect_stdout(sys.stderr):
        for verdict in check_all(paths, under, shrinking.jobs, judge.idle):
            verdicts.append(verdict)
            if done is not None:
                done.append(verdict.path)
            if verdict.status != "FAIL" and unnamed is not None:
                unnamed[verdict.path] = ended(verdict)
            if verdict.status == "FAIL" and verdict.failure is not None:
                judge.add(verdict.failure)
        replay = time.monotonic() - began
        alike = corpus_failing(verdicts, {})
        # As `corpus` spends it, within the run's end.
        given = shrinking.shrink_seconds
        scanning = min(triage.scanning_for(replay, given), until - time.monotonic())
        stopped = [False]
        found = triage.explained(alike, under, max(scanning, 0.0), stopped, judge)
        if stopped[0]:
            return found, True
        ends = min(triage.shrinks_end(began, replay, given), until)
        return triage.shrunk(found, alike, under, shrinking, ends)


def ended(verdict: Verdict) -> tuple[str, str]:
    """How a likely bug's replay while it was named ended, when not in a
    FAIL: its status and the first line of why."""
    return verdict.status, (verdict.reason.splitlines() or [""])[0]


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


def under(proposed: Trial, followed: Diagnosis, checked: Diagnosis | None) -> Coverage | None:
    """What a scenario's replay under `proposed` compared: the checking
    one's, else the last one following it, whose trial was the proposal's
    or one the proposal cannot change the replay of (`inert`): it lacks
    what the proposal lacks, though it compared the fields of those it held."""
    if checked is not None and checked.coverage is not None:
        return checked.coverage
    counted = followed.coverage
    if counted is None or counted.skipped or followed.trial == proposed:
        return counted
    return replace(counted, lacking=names(proposed))


Job = tuple[str, Path, Options, Trial, Any, float]
"""What to do to one scenario (`follow`, `check`, `contradict`), with the
run's options, a trial, what the work needs beside it, and the deadline."""


def _job(job: Job) -> Diagnosis:
    kind, path, opts, trial, more, deadline = job
    if kind == "follow":
        return guarded(path, opts, lambda p, s, r: followed(p, s, r, opts, trial, more, deadline))
    if kind == "check":
        return guarded(path, opts, lambda p, s, r: checked(p, s, r, opts, trial, more, deadline))
    return guarded(path, opts, lambda p, s, r: checked(p, s, r, opts, trial, None, deadline, more))


def rounds(paths: list[Path], jobs: int) -> Iterator[list[Path]]:
    """The scenarios, smallest first, in rounds of `jobs`, `jobs`, then twice
    the round before."""
    order = sorted(paths, key=lambda p: (p.stat().st_size, str(p)))
    size, at = max(jobs, 1), 0
    grow = False
    while at < len(order):
        yield order[at : at + size]
        at += size
        size, grow = (size * 2 if grow else size), True


class Run:
    """One diagnose run as it goes: what is done, and what a progress line
    and a report stopped early say."""

    def __init__(self, paths: list[Path], opts: Options, seconds: float) -> None:
        self.paths, self.opts = paths, opts
        self.began = time.monotonic()
        self.deadline = self.began + seconds
        self.sizes = {p: p.stat().st_size for p in paths}
        self.phase = "starting the engine"
        self.todo: list[Path] = []
        self.done: list[Path] = []
        self.phase_began = self.began
        self.tried: Any = None
        self.base = self.proposed = Trial(opts.profile or SPEC)
        self.proposing = True
        """Whether the proposal is still to be made from the scenarios followed."""
        self.needing: dict[Change, list[Path]] = {}
        self.followed: dict[Path, Diagnosis] = {}
        self.checked: dict[Path, Diagnosis] = {}
        self.stopped: str | None = None
        self.doubtful: dict[Change, tuple[tuple[Any, ...], int]] = {}
        self.causes: list[Cause] = []
        self.unnamed: dict[Path, tuple[str, str]] = {}

    def begin(self, phase: str, todo: list[Path]) -> None:
        self.phase, self.todo, self.done = phase, todo, []
        self.phase_began = time.monotonic()

    def line(self, elapsed: float) -> str:
        """The progress line: the phase, scenarios done of those it has, the
        changes tried (replays), time, and an estimate of the phase's rest."""
        weight = sum(self.sizes.get(p, 0) for p in self.todo)
        done = sum(self.sizes.get(p, 0) for p in self.done)
        tried = self.tried.value if self.tried is not None else 0
        left = estimate(time.monotonic() - self.phase_began, done, weight)
        return (
            f"  ... diagnose: {self.phase}, {len(self.done)} of {len(self.todo)} scenarios, "
            f"{tried:,} replays tried, {elapsed:.0f} s ({left})"
        )

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def latest(self, path: Path) -> Diagnosis:
        """A scenario's last verdict: checked under the proposal, else followed."""
        return self.checked.get(path, self.followed[path])

    def report(self) -> Report:
        """What was found, as far as the run went."""
        seen = [p for p in self.paths if p in self.followed]
        unfinished = [
            p for p in self.paths if p not in self.followed or self.latest(p).status == "unfinished"
        ]
        bugs = [d for p in seen if (d := self.latest(p)).status == "unexplained"]
        covered = {
            p: c
            for p in seen
            if (c := under(self.proposed, self.followed[p], self.checked.get(p))) is not None
        }
        return Report(
            self.opts.engine,
            self.base,
            self.proposed,
            self.needing,
            # A scenario followed, then faulting under the proposal, is said as faulted.
            [d if (d := self.latest(p)).status in FAULTS else self.followed[p] for p in seen],
            bugs,
            time.monotonic() - self.began,
            covered,
            self.stopped,
            unfinished,
            self.doubtful,
            self.causes,
            self.unnamed,
            # The commands a cause's lines repeat pass the proposal (`--proposal`).
            replace(self.opts, trial=self.proposed) if self.proposed != self.base else self.opts,
        )


def diagnose(
    paths: list[Path],
    opts: Options,
    jobs: int,
    shrink_tries: int,
    shrink_seconds: float,
    seconds: float = math.inf,
    regressions: Path = Path(),
) -> Report:
    """Follow every scenario, propose a profile, check every scenario under
    it, find which of its differences the likely bugs contradict, and
    group the likely bugs into causes as `corpus` does, each cause shrunk
    (in at most `shrink_tries` replays and `shrink_seconds`) and written to
    `regressions` when `opts.regression` writes; all within `seconds`. A KeyboardInterrupt (Ctrl-C,
    SIGTERM) ends it early, with what it found so far."""
    state = Run(paths, opts, seconds)
    try:
        state.base = state.proposed = declared(opts)
        state.tried = progress.counter()
        with Workers(jobs, state.tried) as workers, Ticker(state.line, quiet=False):
            phases(state, workers, jobs, shrink_tries, shrink_seconds, regressions)
    except KeyboardInterrupt:
        state.stopped = "interrupted"
    if state.proposing:
        state.proposed, state.needing = propose(state.base, list(state.followed.values()))
    if state.stopped is None and state.out_of_time():
        state.stopped = f"out of time ({seconds:g} s)"
    return state.report()


def doubtful(
    needing: dict[Change, list[Path]], followed: dict[Path, Diagnosis], bugs: list[Diagnosis]
) -> dict[Change, tuple[tuple[Any, ...], int]]:
    """The proposed changes that explain a bug away (see the module's
    docstring, phase 4): those whose every symptom explained is a bug's,
    each with the symptom and how many likely bugs show it. A symptom is a
    bug's when more likely bugs show it unexplained than scenarios needed
    the change, or as many show it the other way round (`mirrored`: under
    the proposal the model now has what the engine lacks, the change went
    past what the engine does). A change is also doubtful when as many
    scenarios as needed it turned against it while followed (`turned`):
    the same engine, in one scenario, first did what the change says and
    then the other way round under it. A change that also explained a symptom no
    likely bug shows is a difference of the engine's (`retry: "tick"`
    needed beside no AHEAD at the bug's first divergence, and alone where a
    held node restarts)."""
    shown = Counter(b.steps[-1].symptom for b in bugs)
    out = {}
    for change, paths in needing.items():
        explained = {
            step.symptom for p in paths for step in followed[p].steps if change in step.explained_by
        }
        suspect = {}
        for symptom in explained:
            if shown[symptom] > len(paths):
                suspect[symptom] = (symptom, shown[symptom])
            elif mirrored(symptom) != symptom and shown[mirrored(symptom)] >= len(paths):
                suspect[symptom] = (symptom, shown[mirrored(symptom)])
        if suspect and len(suspect) == len(explained):
            out[change] = max(suspect.values(), key=lambda pair: pair[1])
        against = [s for d in followed.values() if (s := turned(change, d)) is not None]
        if change not in out and len(against) >= len(paths):
            out[change] = (against[0], len(against))
    return out


def contradicted(
    needing: dict[Change, list[Path]], followed: dict[Path, Diagnosis], tried: list[Diagnosis]
) -> dict[Change, tuple[tuple[Any, ...], int]]:
    """The proposed changes that the engine's own answers contradict (see
    the module's docstring, phase 4): those under which as many scenarios
    as needed them diverge earlier (`tried`: likely bugs replayed with each
    difference of the proposal undone, `Diagnosis.contradicts`) that the
    engine agreed with from end to end, followed under a trial without
    them. Where the engine agrees with SPEC all through a scenario in which
    the change alters what is expected, it does not do what the change
    says: the change explained part of a bug (a free leaf not built at once
    looks like a queued one at some messages, and like nothing SPEC allows
    at others). Each with the symptom it explained most and how many
    scenarios contradict it."""
    out = {}
    for change, paths in needing.items():
        against = [
            d for d in tried if change in d.contradicts and agreed_without(followed[d.path], change)
        ]
        explained = Counter(
            step.symptom for p in paths for step in followed[p].steps if change in step.explained_by
        )
        if explained and len(against) >= len(paths):
            out[change] = (explained.most_common(1)[0][0], len(against))
    return out


def agreed_without(was: Diagnosis, change: Change) -> bool:
    """Whether the engine agreed with a scenario from end to end, followed,
    under a trial without `change`."""
    return was.status in ("agrees", "explained") and (
        was.trial is not None and not holds(was.trial, (change,))
    )


def turned(change: Change, followed: Diagnosis) -> tuple[Any, ...] | None:
    """A symptom a change explained while a scenario was followed, which
    the same scenario then shows the other way round (`mirrored`), under
    it and unexplained; None when it shows none."""
    explained: set[tuple[Any, ...]] = set()
    for step in followed.steps:
        if change in step.explained_by:
            explained.add(step.symptom)
        elif not step.explained_by and step.symptom != mirrored(step.symptom) in explained:
            return mirrored(step.symptom)
    return None


def said(state: Run, what: str) -> None:
    """The proposal as it grows, a progress line on stderr: each change
    from the declared profile and capabilities, and how many scenarios
    needed it."""
    changes = ", ".join(f"{c.said()} ({len(p)})" for c, p in state.needing.items())
    print(
        f"  ... diagnose: {what}, after {len(state.followed)} of {len(state.paths)} "
        f"scenarios: {changes or 'as declared'}",
        file=sys.stderr,
        flush=True,
    )


def phases(
    state: Run,
    workers: Workers,
    jobs: int,
    shrink_tries: int,
    shrink_seconds: float,
    regressions: Path,
) -> None:
    """The run's phases (see the module's docstring), filling in `state`."""
    opts, deadline = state.opts, state.deadline

    def each(work: list[Job]) -> Iterator[Diagnosis]:
        for d in workers.each(_job, work, lambda job: job[1]):
            state.done.append(d.path)
            yield d

    def check(phase: str) -> list[Diagnosis]:
        """Each scenario checked under the proposal, unless its last
        verdict was under it; those that fail."""
        proposed = state.proposed
        again: list[Job] = [
            ("check", p, opts, proposed, d.trial if d.status != "unexplained" else None, deadline)
            for p in state.paths
            if p in state.followed
            and (d := state.latest(p)).status in FOLLOWED
            and d.trial != proposed
        ]
        state.begin(phase, [job[1] for job in again])
        for d in each(again):
            state.checked[d.path] = d
        return [
            d
            for p in state.paths
            if p in state.followed and (d := state.latest(p)).status == "unexplained"
        ]

    state.begin("following", list(state.paths))
    known: frozenset[tuple[Any, ...]] = frozenset()
    for batch in rounds(state.paths, jobs):
        work: list[Job] = [("follow", p, opts, state.proposed, known, deadline) for p in batch]
        for d in each(work):
            state.followed[d.path] = d
        was = state.proposed
        last = len(state.followed) == len(state.paths)
        state.proposed, state.needing = propose(state.base, list(state.followed.values()), last)
        if state.proposed != was:
            said(state, "proposal so far")
        seen = Counter(
            d.steps[-1].symptom for d in state.followed.values() if d.status == "unexplained"
        )
        known = frozenset(s for s, count in seen.items() if count >= KNOWN)
    state.proposing = False
    failing = check("checking the proposal")
    state.doubtful = doubtful(state.needing, state.followed, failing)
    # The likely bugs the engine agreed with under a trial without some
    # change of the proposal, tried with each of its differences undone.
    agreed: list[Job] = [
        ("contradict", d.path, opts, state.proposed, state.base, deadline)
        for d in failing
        if any(agreed_without(state.followed[d.path], c) for c in state.needing)
    ]
    if agreed:
        state.begin(
            "trying the proposal's differences where the engine agreed without them",
            [job[1] for job in agreed],
        )
        tried = list(each(agreed))
        against = contradicted(state.needing, state.followed, tried)
        state.doubtful |= {c: why for c, why in against.items() if c not in state.doubtful}
    if state.doubtful:
        kept = [c for c in state.needing if c not in state.doubtful]
        state.proposed = applied(state.base, kept) or state.base
        state.needing = {c: state.needing[c] for c in kept}
        said(state, "proposal without the changes that explain bugs away")
        failing = check("checking the proposal without the doubtful changes")
    proposed = state.proposed
    state.begin("grouping the likely bugs into causes", [d.path for d in failing])
    smallest = sorted(failing, key=lambda d: (d.path.stat().st_size, str(d.path)))
    given = None if shrink_seconds == math.inf else shrink_seconds
    budget = triage.Shrinking(shrink_tries, given, regressions, jobs)
    interrupted = False
    if failing:
        state.causes, interrupted = grouped(
            smallest, opts, proposed, budget, deadline, state.done, state.unnamed
        )
    path_of = {shown(d.path): d.path for d in failing}
    if interrupted:
        raise KeyboardInterrupt
    named = ((n, k) for k, c in enumerate(state.causes) for n in c.scenarios)
    of_cause = {path_of[n]: k for n, k in named if n in path_of}
    samples: dict[int, list[Diagnosis]] = {}
    for d in smallest:
        group_ = samples.setdefault(of_cause.get(d.path, -1), [])
        if len(group_) < SAMPLES:
            group_.append(d)
    tries: list[Job] = [
        ("contradict", d.path, opts, proposed, state.base, deadline)
        for g in samples.values()
        for d in g
    ]
    state.begin("trying the proposal's differences on the likely bugs", [job[1] for job in tries])
    found: dict[int, set[Change]] = {}
    for d in each(tries):
        if d.status == "unexplained":
            found.setdefault(of_cause.get(d.path, -1), set()).update(d.contradicts)
    for d in failing:
        against = tuple(sorted(found.get(of_cause.get(d.path, -1), ())))
        state.checked[d.path] = replace(d, contradicts=against)
