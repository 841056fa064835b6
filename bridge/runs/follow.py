"""One scenario of a `diagnose` run (bridge/runs/diagnose.py): followed
through its divergences from a trial (a profile and capabilities), each
divergence explained by the first tier of changes (bridge/checking/changes.py)
with one that moves it later, the best of that tier taken; checked again
under a proposal; or tried under a proposal with each of its differences
undone, to see which the scenario contradicts.

The engine replays the scenario once (bridge/wire/recorded.py keeps its
answers, and is given only lines it was not given before, at its own pace);
each change tried costs a replay of the expected answers up to its first
divergence: from a committed transcript when the profile has one, or a kept
profile's that differs from it only in options the scenario cannot make
matter (bridge/checking/changes.py `stand_in`), and the capabilities change
nothing that is sent; else from the model. Guessing `kind_words` costs the
whole state of both sides at the divergence: a replay of the lines up to
it, then a detail request, on each side.

Every replay counts in the run's shared count (bridge/runs/progress.py) and
stops at the run's deadline (`OutOfTime`, the scenario `unfinished`).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.checking.changes import (
    LACKS,
    TEXT_FIELDS,
    Change,
    Texts,
    Trial,
    applied,
    between,
    guessed,
    inert,
    stand_in,
    symptom,
    texts_of,
    tiers,
    wants_texts,
    withheld_for,
)
from bridge.checking.compare import MISSING, Divergence, run, state_after
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import add_delivery
from bridge.checking.shrink import Way, way_of
from bridge.checking.verdict import Skipped, lacks_for, within
from bridge.formats import transcript
from bridge.formats.capabilities import ALL, described, lacking, only_tests
from bridge.formats.layout import expected_path, read_checked
from bridge.formats.profile import SPEC
from bridge.runs import progress
from bridge.runs.corpus import Options, keep, kept_engine
from bridge.runs.expect import profiles
from bridge.wire.engine import EngineFault, limits_of
from bridge.wire.inprocess import ModelEngine
from bridge.wire.observe import ORDER
from bridge.wire.recorded import Recorded
from bridge.wire.stream import changes as changes_sent
from bridge.wire.stream import exchanges
from scenarios.format import Scenario, ScenarioError


@dataclass(frozen=True)
class Step:
    """A divergence met while following a scenario, and the changes that
    made it vanish (none: no change tried did)."""

    position: int | None
    way: Way
    summary: str
    explained_by: tuple[Change, ...]
    symptom: tuple[Any, ...] = ()
    """How it shows (bridge/checking/changes.py `symptom`)."""
    alternatives: tuple[tuple[Change, ...], ...] = ()
    """Other changes of the same tier that also made the scenario agree to
    its end, when `explained_by` is a guessed value alone (`Follower.explain`)."""


def step(
    found: Divergence,
    explained_by: tuple[Change, ...] = (),
    alternatives: tuple[tuple[Change, ...], ...] = (),
) -> Step:
    """A divergence met, the changes that made it vanish, and the others that did as well."""
    return Step(
        found.position, way_of(found), found.summary(), explained_by, symptom(found), alternatives
    )


@dataclass
class Diagnosis:
    """One scenario followed through its divergences (or checked again)."""

    path: Path
    status: str
    """`agrees` (under the trial it started from), `explained` (every
    divergence vanished under the changes in `needed`), `unexplained` (one
    stayed), `unfinished` (the run's time ran out), `SKIPPED`, `BAD`,
    `FAULT` or `ERROR`."""
    seconds: float = 0.0
    steps: list[Step] = field(default_factory=list)
    needed: tuple[Change, ...] = ()
    """The changes made to the trial it started from, in turn."""
    reason: str = ""
    replays: int = 0
    """Replays of the expected answers made (from a transcript or the model)."""
    coverage: Coverage | None = None
    """What the replay that decided the status compared (None: none was made)."""
    trial: Trial | None = None
    """The trial of that replay: the scenario agrees under it, when `agrees` or `explained`."""
    contradicts: tuple[Change, ...] = ()
    """Differences of the trial from SPEC whose undoing moves its divergence later."""
    right: frozenset[str] = frozenset()
    """The capabilities the engine got right in its replays (`Follower.right`)."""


@dataclass
class Explained:
    """What explains a divergence (`Follower.explain`): the changes, the
    divergence after them, what their replay compared, their trial, and
    other changes that made the scenario agree as well."""

    extra: tuple[Change, ...]
    after: Divergence | None
    coverage: Coverage | None
    trial: Trial
    alternatives: tuple[tuple[Change, ...], ...] = ()


class Skip(Exception):
    """The engine cannot take the scenario."""


class OutOfTime(Exception):
    """The run's time (`diagnose --seconds`) ran out."""


def later(found: Divergence | None, than: Divergence) -> bool:
    """Whether a divergence comes after another in the scenario (none at all
    does): at a later event, or a later line, or a field named later in
    the same answer (a change may explain one field of an answer and not
    the next)."""
    if found is None:
        return True
    return place(found) > place(than)


def place(found: Divergence) -> tuple[int, int, int]:
    """Where a divergence is: its event, its line, its field's place in `ORDER`."""
    far = 1 << 62
    field = ORDER.index(found.field) if found.field in ORDER else len(ORDER)
    return (far if found.position is None else found.position, found.index, field)


def names(trial: Trial) -> tuple[str, ...]:
    """The capabilities a trial lacks, by name."""
    return tuple(c.name for c in trial.lacks)


def absent(found: Divergence) -> bool:
    """Whether the engine left the diverging field out, or said it does not
    support the event: what a capability it lacks shows as."""
    return found.found is MISSING or found.field == "unsupported"


class Follower:
    """One scenario, its recorded engine, and the model under trials."""

    def __init__(
        self,
        path: Path,
        scenario: Scenario,
        recorded: Recorded,
        opts: Options,
        start: Trial,
        deadline: float,
        known: frozenset[tuple[Any, ...]] = frozenset(),
    ) -> None:
        self.path, self.scenario, self.recorded, self.opts = path, scenario, recorded, opts
        self.start, self.deadline, self.known = start, deadline, known
        self.kept = [p for p in profiles() if expected_path(path, p).exists()]
        """The profiles with a transcript of the scenario."""
        self.replays = 0
        self.coverage: Coverage | None = None
        """What the last replay compared."""
        self.trial: Trial | None = None
        """The trial of the last replay."""
        self.right: set[str] = set()
        """The capabilities the engine got right in a replay (bridge/checking/compare.py
        `rightly`): lacking one is then no explanation of a divergence (issue 40)."""
        self.in_time()
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
            # The engine's own word against --capabilities only: the trial is
            # the model's side, never told to the engine (issue 40).
            lacks_for(scenario, ready, opts.capabilities, recorded.name)
        except Skipped as skipped:
            raise Skip(str(skipped)) from None
        alone = only_tests(start.lacks, scenario.notes)
        if alone is not None:
            raise Skip(f"it tests only {alone.name} ({alone.spec}), which the trial lacks")

    def in_time(self, _answers: int = 0) -> None:
        """OutOfTime once the run's deadline has passed."""
        if time.monotonic() > self.deadline:
            raise OutOfTime()

    def expected(self, trial: Trial) -> Iterator[Any]:
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
            self.coverage, self.trial = Coverage(count, skipped=count), trial
            return None
        return self.replay(trial)

    def replay(self, trial: Trial) -> Divergence | None:
        """The engine's first divergence under `trial`, what was compared kept."""
        self.in_time()
        self.replays += 1
        progress.count()
        self.coverage = Coverage(len(self.scenario.events), lacking=names(trial))
        self.trial = trial
        self.recorded.start(self.scenario)
        result = run(
            self.expected(trial),
            self.recorded,
            self.ready,
            progress=self.in_time,
            lacks=trial.lacks,
            coverage=self.coverage,
            right=self.right,
        )
        if result.unsupported is not None:
            said = result.unsupported_at
            if said is not None and withheld_for(trial, said):
                return said
            raise Skip(f"the engine does not support {result.unsupported}")
        add_delivery(self.scenario, trial.profile, result)
        return result.divergence

    def once(self, trial: Trial) -> Divergence | None:
        """`first`, for a scenario replayed only under `trial`."""
        if only_tests(trial.lacks, self.scenario.notes) is not None:
            raise Skip(f"it tests only what the engine lacks ({described(trial.held)})")
        return self.replay(trial)

    def texts(self, trial: Trial, found: Divergence) -> Texts:
        """The texts both sides wrote at a divergence: the diverging field's,
        or, for a field that stands for texts or a message's answer, the
        whole state of each after the lines sent up to it."""
        if found.field in TEXT_FIELDS:
            return texts_of(found.expected), texts_of(found.found)
        self.in_time()
        self.replays += 1
        progress.count()
        model = state_after(ModelEngine(trial.profile), self.scenario, found.lines)
        engine = state_after(self.recorded, self.scenario, found.lines)
        return texts_of(model), texts_of(engine)

    def explain(
        self, trial: Trial, made: tuple[Change, ...], found: Divergence
    ) -> Explained | None:
        """The change (of the first tier with one) that moves `found`
        furthest, the divergence after it, what its replay compared and its
        trial; None when none moves it. A guessed value alone comes with the
        tier's other single options that move it as far (`alike`): one
        scenario cannot tell them apart (a given line one byte over NODE
        installed fits a tolerance of 1.02 and `overlong: kept` alike), the
        proposal chooses (bridge/runs/diagnose.py `propose`)."""
        taken = {c.key for c in made}
        texts = None
        if wants_texts(found):
            texts = self.texts(trial, found)
        known = symptom(found) in self.known
        node = self.scenario.constants.get("node")
        node = node if type(node) is int else None
        guesses = guessed(trial, found, texts, node)
        for group in tiers(trial, taken, found, guesses, known):
            best: Explained | None = None
            reached: dict[tuple[Change, ...], Divergence | None] = {}
            for extra in group:
                if not absent(found) and any(
                    c.option == LACKS and c.value in self.right for c in extra
                ):
                    continue  # what it owns was right before: a bug, not a lack
                tried = applied(trial, extra)
                if tried is None:
                    continue
                after = reached[extra] = self.first(tried)
                if later(after, found) and (best is None or later(after, best.after or found)):
                    best = Explained(extra, after, self.coverage, tried)
                    if after is None:
                        break
            if best is not None:
                if len(best.extra) == 1 and best.extra[0] in guesses:
                    best.alternatives = self.alike(trial, group, guesses, reached, best.after)
                return best
        return None

    def alike(
        self,
        trial: Trial,
        group: list[tuple[Change, ...]],
        guesses: list[Change],
        reached: dict[tuple[Change, ...], Divergence | None],
        after: Divergence | None,
    ) -> tuple[tuple[Change, ...], ...]:
        """The single options of `group`, none guessed, that move the
        divergence as far as a guess moved it (to `after`), replayed where
        `reached` does not say (the last replay's coverage and trial kept)."""
        counted, last = self.coverage, self.trial
        out = []
        for extra in group:
            if len(extra) != 1 or extra[0] in guesses or extra[0].option == LACKS:
                continue
            if extra not in reached:
                tried = applied(trial, extra)
                if tried is None:
                    continue
                reached[extra] = self.first(tried)
            there = reached[extra]
            if there is None or (after is not None and not later(after, there)):
                out.append(extra)
        self.coverage, self.trial = counted, last
        return tuple(out)

    def follow(self) -> tuple[list[Step], tuple[Change, ...], Trial]:
        """The scenario's divergences in turn, each with what explains it,
        the changes made and the trial they make; `coverage` is then what
        the replay under that trial compared."""
        trial, made = self.start, ()
        found = self.first(trial)
        counted = self.coverage
        steps: list[Step] = []
        while found is not None:
            explained = self.explain(trial, made, found)
            if explained is None:
                steps.append(step(found))
                break
            steps.append(step(found, explained.extra, explained.alternatives))
            made = made + explained.extra
            found, counted, trial = explained.after, explained.coverage, explained.trial
        self.coverage = counted
        return steps, made, trial

    def undone(self, proposed: Trial, base: Trial) -> Iterator[tuple[Change, Trial]]:
        """Each difference of `proposed` from SPEC that can change this
        scenario's replay, and `proposed` with it undone: an option set back
        to the declared value (`base`'s) when the proposal changed it, else
        to SPEC's; a capability lacked held again."""
        for name, value in ((c.option, c.value) for c in between(Trial(SPEC), proposed)):
            if name == LACKS:
                again = Trial(proposed.profile, proposed.held | {value})
                if changes_sent(self.scenario, lacking(ALL - {value})):
                    yield Change(LACKS, value), again
                continue
            was = getattr(base.profile, name)
            back = was if was != value else getattr(SPEC, name)
            trial = applied(proposed, (Change(name, back),))
            if trial is not None and not inert(self.scenario, (Change(name, back),), trial.profile):
                yield Change(name, value), trial


def guarded(
    path: Path, opts: Options, work: Callable[[Path, Scenario, Recorded], Diagnosis]
) -> Diagnosis:
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
        out = work(path, scenario, recorded)
        ended = recorded.finish()
    except Skip as why:
        out = Diagnosis(path, "SKIPPED", reason=str(why), coverage=Coverage(count, skipped=count))
    except OutOfTime:
        out = Diagnosis(path, "unfinished", reason="the run's time ran out", coverage=stopped)
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


def followed(
    path: Path,
    scenario: Scenario,
    recorded: Recorded,
    opts: Options,
    start: Trial,
    known: frozenset[tuple[Any, ...]],
    deadline: float,
) -> Diagnosis:
    """The scenario followed from `start` through its divergences (a
    divergence of a `known` symptom tried only with the changes it concerns)."""
    follower = Follower(path, scenario, recorded, opts, start, deadline, known)
    steps, needed, trial = follower.follow()
    status = "agrees" if not steps else "explained" if steps[-1].explained_by else "unexplained"
    return Diagnosis(
        path,
        status,
        steps=steps,
        needed=needed,
        replays=follower.replays,
        coverage=follower.coverage,
        trial=trial,
        right=frozenset(follower.right),
    )


def checked(
    path: Path,
    scenario: Scenario,
    recorded: Recorded,
    opts: Options,
    proposed: Trial,
    since: Trial | None,
    deadline: float,
    base: Trial | None = None,
) -> Diagnosis:
    """The scenario under `proposed`, unless it agreed under `since` and
    what `proposed` changes cannot matter in it (`inert`). Given the
    declared `base`, a divergence is tried again with each difference of
    the proposal from SPEC undone (`Follower.undone`): those whose undoing
    moves it later are what it contradicts."""
    if since is not None and not proposed.held - since.held:
        if inert(scenario, between(since, proposed), proposed.profile):
            return Diagnosis(path, "agrees", trial=since)
    follower = Follower(path, scenario, recorded, opts, proposed, deadline)
    found = follower.once(proposed)
    counted = follower.coverage
    if found is None:
        return Diagnosis(path, "agrees", replays=1, coverage=counted, trial=proposed)
    against: tuple[Change, ...] = ()
    if base is not None:
        against = tuple(
            change
            for change, trial in follower.undone(proposed, base)
            if later(follower.first(trial), found)
        )
    return Diagnosis(
        path,
        "unexplained",
        steps=[step(found)],
        replays=follower.replays,
        coverage=counted,
        trial=proposed,
        contradicts=against,
    )
