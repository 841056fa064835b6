"""The causes of a run's FAILs (`corpus`, and `diagnose`'s likely bugs
replayed under its proposal): the FAILs one rule slip of the model
explains are one cause named by it (bridge/checking/slips.py), tried as
the replay brings them (`Judge`) and after it (`explained`); those no
slip explains grouped by where they first diverge (bridge/checking/causes.py);
each cause shrunk (`shrunk`) and said (`said_cause`)."""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bridge.checking import causes, slips
from bridge.checking.shrink import Budget, marked, parted, plain_texts, shrink_budget, simplify
from bridge.checking.verdict import Verdict
from bridge.formats.kit import shown
from bridge.formats.layout import slug
from bridge.formats.usage import UsageError
from bridge.runs.corpus import Options, find_causes, make_engine, reproduction
from bridge.runs.progress import Ticker
from bridge.runs.tally import counted
from bridge.wire.engine import EngineFault
from model.profile import Profile
from scenarios.format import Scenario


@dataclass(frozen=True)
class Shrinking:
    """What the causes' shrinks may spend and where their scenarios go:
    `corpus`'s and `diagnose`'s --shrink-tries, --shrink-seconds (None: no
    limit, beyond the run's own end, `deadline`), --regressions, --jobs."""

    shrink_tries: int
    shrink_seconds: float | None
    regressions: Path
    jobs: int


SHOWN = 6
"""How many of a cause's scenarios its lines name."""


SCANNING = 0.2
"""What share of the replay's time trying slips on FAILs may take after
the replay (at least `SCANNING_AT_LEAST` seconds), so that the verdict
comes soon after the replay (bridge/checking/slips.py `explain`), unless
--shrink-seconds is given: then that many seconds."""

SCANNING_AT_LEAST = 2.0

AHEAD_AT_LEAST = 8
"""How many FAILs must wait after the replay for `Judge.rest` to fork a
process that judges them beside this one (slips.py `Ahead`), with --jobs 2
or more: the FAILs of a run's end are many small ones."""

WHOLE_SCANS = 60
"""How many slips the whole scans after the replay (of the FAILs no slip
at the diverging line explains) try in all: a count, so that a slow or
busy machine scans them as far as a quiet one (within `SCANNING`)."""

ENDING = 1.8
"""When the shrinks stop, as a multiple of the replay's time counted from
the run's start (but never less than `SHRINKING_AT_LEAST` seconds after
the verdict), unless --shrink-seconds is given, so that a red run ends
within 2x of its replay: shrinks stop early, each cause's scenario kept as
small as it got."""

SHRINKING_AT_LEAST = 3.0

FALLBACKS = 3
"""How many other slips a slip's cause may be named by in turn when the
engine refutes its slip on its shrunk scenario (`named_by`): each a shrink
more (with --shrink-seconds, each as long as one cause's: `slip_shrunk`)."""


def deadline(began: float, replay: float) -> float:
    """When the shrinks of a run begun at `began` whose replay took `replay`
    seconds stop (`time.monotonic`)."""
    return max(began + ENDING * replay, time.monotonic() + SHRINKING_AT_LEAST)


def spending(args: Shrinking, ends: float) -> Budget:
    """What one cause's shrink may spend in all its steps: --shrink-tries,
    and --shrink-seconds from now, ending by `ends` (`time.monotonic`) at most."""
    seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds
    return Budget(args.shrink_tries, min(time.monotonic() + seconds, ends))


def scanning_for(replay: float, given: float | None) -> float:
    """The seconds trying slips after a replay of `replay` seconds may take:
    `given` (--shrink-seconds), else SCANNING of the replay's, at least
    SCANNING_AT_LEAST."""
    return given if given is not None else max(SCANNING * replay, SCANNING_AT_LEAST)


def shrinks_end(began: float, replay: float, given: float | None) -> float:
    """When the shrinks stop: the run's `deadline`, unless --shrink-seconds
    is `given` (then each cause's shrink has that many seconds, no end)."""
    return deadline(began, replay) if given is None else math.inf


class Judge:
    """Rule slips tried on each FAIL as the replay brings it
    (bridge/checking/slips.py `Explaining`) while this process would
    otherwise wait for the workers (`idle`), so that little is left to try
    once the replay ends (`rest`): the smallest waiting of a kind of first
    divergence that may still be scanned and of which no FAIL is in a
    group yet (a scan of a large FAIL is dear), else the largest waiting
    (the dearest to try, best tried while the replay goes on; the small
    ones come last anyway, the workers taking the largest scenarios first)."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs
        self.waiting: list[tuple[tuple[int, str], slips.Failure]] = []
        self.given: set[str] = set()
        self.explaining: slips.Explaining | None = None
        self.done = 0

    def add(self, failure: slips.Failure) -> None:
        """A FAIL to try (once)."""
        if failure.name not in self.given:
            self.given.add(failure.name)
            self.waiting.append((slips.size(failure), failure))

    def idle(self, quiet: bool = False) -> bool:
        """Try the FAIL `chosen` of those waiting, if any, else one deferred
        before a group it was not tried on (slips.py `Explaining.retried`):
        whether there was one. Unless `quiet`, a line every 10 s says which
        FAIL holds back the scenarios' lines."""
        if not self.waiting:
            if self.explaining is None:
                return False

            def again(elapsed: float) -> str:
                return f"  ... rule slips tried again on a FAIL deferred ({elapsed:.0f} s)"

            with Ticker(again, quiet):
                return self.explaining.retried()
        if self.explaining is None:
            self.explaining = slips.Explaining(wide=False)
        failure = self.chosen(self.explaining)

        def line(elapsed: float) -> str:
            return f"  ... rule slips tried on {Path(failure.name).name} ({elapsed:.0f} s)"

        with Ticker(line, quiet):
            self.explaining.add(failure)
        self.done += 1
        return True

    def chosen(self, explaining: slips.Explaining) -> slips.Failure:
        """The FAIL to try next, taken off `waiting` (see the class's words),
        the smallest of a kind of first divergence none was tried of first
        (a bug of few FAILs is not left for the time after many of another)."""
        tried = {f.signature for f in explaining.added}
        named = {f.signature for g in explaining.groups for f in g.failures}
        open_ = [w for w in self.waiting if w[1].signature not in named]
        open_ = [w for w in open_ if explaining.scanning(w[1].signature)]
        open_ = [w for w in open_ if w[1].signature not in tried] or open_
        pick = min(open_, key=lambda w: w[0]) if open_ else max(self.waiting, key=lambda w: w[0])
        self.waiting.remove(pick)
        return pick[1]

    def rest(
        self, seconds: float = math.inf, tries: int = WHOLE_SCANS
    ) -> tuple[list[slips.Explained], list[slips.Failure]]:
        """Try every FAIL still waiting, scans trying `tries` slips at most
        and stopping `seconds` from now: what all the FAILs tried come to
        (slips.py `explain`). While the replay went on, only the slips at
        each FAIL's diverging line were tried: the FAILs none of those
        explains are scanned whole now, after those still waiting are tried
        as during the replay (the smallest FAILs, the last to come, are the
        cheapest to scan). Each group is named by its slip `furthest` finds.
        With jobs, a forked process judges ahead meanwhile (slips.py `Ahead`)."""
        if self.explaining is None:
            self.explaining = slips.Explaining()
        self.explaining.deadline = min(self.explaining.deadline, time.monotonic() + seconds)
        self.explaining.left = tries
        ahead = slips.Ahead()
        slips.AHEAD.append(ahead)
        try:
            if self.jobs > 1 and len(self.waiting) >= AHEAD_AT_LEAST and hasattr(os, "fork"):
                waiting = [f for _, f in sorted(self.waiting, key=lambda w: w[0])]
                ahead.start(self.scanned_whole() + waiting, self.fitted)
            while self.idle(quiet=True):
                pass
            self.explaining.widen()
            groups, alone = self.explaining.explained()
            for group in groups:
                best = slips.furthest(group)
                group.slips = [best, *(s for s in group.slips if s != best)]
            return groups, alone
        finally:
            slips.AHEAD.remove(ahead)
            ahead.stop()

    def scanned_whole(self) -> list[slips.Failure]:
        """The FAILs deferred that `widen` will scan whole, as far as can be
        told now: the smallest of each kind of first divergence, as many
        as may still be scanned."""
        explaining = self.explaining
        assert explaining is not None
        chosen: list[slips.Failure] = []
        for failure in sorted(explaining.deferred, key=slips.size):
            kind = failure.signature
            scanned = explaining.scanned.get(kind, 0)
            if scanned + sum(f.signature == kind for f in chosen) < explaining.scans:
                chosen.append(failure)
        return chosen

    def fitted(self, failure: slips.Failure) -> None:
        """Try a FAIL on the groups as it would be placed now (slips.py
        `Explaining.place`); where the engine parts from the slip that fits
        it, on the group's other slips too (as `furthest` does); if none
        fits and its kind of first divergence may still be scanned, on
        every slip a whole scan would try: what the forked process of
        `rest` judges ahead, the FAILs `widen` will scan first and then the
        smallest waiting, while this one takes the largest waiting first
        and scans last."""
        explaining = self.explaining
        assert explaining is not None
        groups = sorted(explaining.groups, key=lambda g: -len(g.failures))
        if not failure.replayed():
            return
        for group in groups:
            kept = slips.fitting(group, failure, explaining.refuted)
            if kept and failure.parting(kept[0]) is not None:
                for slip in group.slips:
                    failure.explained_by(slip)
            if kept:
                return
        scanned = explaining.scanned.get(failure.signature, 0) < explaining.scans
        if slips.together(failure, groups) is None and scanned:
            # No deadline: a judgment cut by one would be taken as made.
            slips.scan(failure, math.inf, True, explaining.left)


def explained(
    alike: dict[causes.Signature, list[Verdict]],
    options: Options,
    scanning: float,
    interrupted: list[bool],
    judge: Judge | None = None,
) -> list[causes.Cause]:
    """The causes of a run's FAILs, said at once, before any shrink
    (bridge/checking/slips.py `explain`, through `judge`, which may have
    tried some during the replay): the FAILs one rule slip of the
    model explains are one cause, named by it; those no slip explains are
    one cause per area of SPEC (causes.py `Signature.area`), which
    shrinking may split. An interruption (Ctrl-C, SIGTERM) is kept in `interrupted`; the
    FAILs are then grouped by their first divergence alone."""
    if not alike:
        return []
    fails = sum(map(len, alike.values()))
    print(f"grouping {fails} FAIL into causes: trying the model's rule slips ...", flush=True)
    of = {v.failure.name: key for key, vs in alike.items() for v in vs if v.failure is not None}
    failures = [v.failure for vs in alike.values() for v in vs if v.failure is not None]
    judge = judge or Judge()
    for failure in failures:
        judge.add(failure)

    def progress(elapsed: float) -> str:
        return f"  ... causes: {judge.done} of {len(judge.given)} FAILs tried ({elapsed:.0f} s)"

    groups: list[slips.Explained] = []
    try:
        with Ticker(progress, False):
            groups, alone = judge.rest(scanning)
            left_over(alike, groups, alone, time.monotonic() + scanning)
            slips.settled(groups)
    except KeyboardInterrupt:
        interrupted[0] = True
        print("interrupted: every FAIL is its area of SPEC's cause")
    found: list[causes.Cause] = []
    by_slip: set[str] = set()
    for group in groups:
        names = [f.name for f in group.failures]
        first = of[names[0]]
        named = causes.Signature(first.part, first.kind, first.rule, slip=group.slip.id)
        fallbacks = [slip.id for slip in group.slips[1:]]
        found.append(causes.Cause(named, names, slips_tried=True, fallbacks=fallbacks))
        by_slip.update(names)
    for made, _ in find_causes(unexplained(alike, by_slip), options, 1, 0):
        found += [replace(cause, slips_tried=True) for cause in made]
    if not interrupted[0]:

        def after(elapsed: float) -> str:
            return f"  ... causes: bugs that show after another's ({elapsed:.0f} s)"

        try:
            with Ticker(after, False):
                found = later_bugs(found, {f.name: f for f in failures})
        except KeyboardInterrupt:
            interrupted[0] = True
            print("interrupted: the bugs that show after another's are not listed")
    found = ordered(found)
    print(f"{fails} FAIL from {counted(len(found), 'cause')}:", flush=True)
    for number, cause in enumerate(found, start=1):
        print(said_cause(number, cause, options, found), flush=True)
    return found


def left_over(
    alike: dict[causes.Signature, list[Verdict]],
    groups: list[slips.Explained],
    alone: list[slips.Failure],
    deadline: float,
) -> None:
    """FAILs no slip explains, whose diverging answer shows a slip's bug
    and another: two groups' slips together explain it (slips.py
    `together`; it was tried before the second group was made), and it
    joins the first; else it is marked with what is left once the slip
    takes its bug out (slips.py `Failure.left_by`, `Failure.left`) and
    moved in `alike` to that signature, if it is another: it is grouped
    with the other bug's FAILs, never shrunk as their cause (its first
    divergence shows the slip's bug), nor a cause of its own. The smallest
    first, each a model replay for each slip or two, none tried after
    `deadline` (`time.monotonic`)."""
    for failure in sorted(alone, key=slips.size) if groups else ():
        if time.monotonic() >= deadline:
            break
        both = slips.together(failure, groups)
        if both is not None:
            both.failures.append(failure)
            failure.paired = True
            continue
        left = next(((g.slip, w) for g in groups if (w := failure.left_by(g.slip))), None)
        key = next((k for k, vs in alike.items() for v in vs if v.failure is failure), None)
        if left is None or key is None:
            continue
        (verdict,) = [v for v in alike[key] if v.failure is failure]
        failure.beside, (field, value) = left
        divergence = {**(verdict.divergence or {}), "field": field, "expected": value}
        residual = causes.signature_of_json(divergence)
        failure.left = residual.id
        if residual != key:
            alike[key].remove(verdict)
            alike.setdefault(residual, []).append(verdict)
    for key in [k for k, vs in alike.items() if not vs]:
        del alike[key]


def shrunk(
    found: list[causes.Cause],
    alike: dict[causes.Signature, list[Verdict]],
    options: Options,
    args: Shrinking,
    ends: float = math.inf,
) -> tuple[list[causes.Cause], bool]:
    """The causes with a shrunk scenario each, written to --regressions as
    it comes, all said at the end: a slip's shrunk against the model alone
    (`slip_shrunk`), the others' as `grouped` shrinks them, no shrink going
    on past `ends` (`time.monotonic`); and whether an
    interruption (Ctrl-C, SIGTERM) cut the shrinking short (what is not
    shrunk then stays as it was)."""
    if not found or not args.shrink_tries:
        return found, False
    interrupted = False
    by_slip = [c for c in found if c.slip is not None]
    left = unexplained(alike, {name for c in by_slip for name in c.scenarios})
    failure_of = {v.failure.name: v.failure for vs in alike.values() for v in vs if v.failure}
    shrinking = [""]

    def progress(elapsed: float) -> str:
        return f"  ... causes: shrinking {shrinking[0]} ({elapsed:.0f} s)"

    try:
        for cause in list(by_slip):
            shrinking[0] = cause.id
            with Ticker(progress, False):
                unmarked = {
                    id(f) for f in named_by(cause, failure_of, options, args, ends, by_slip)
                }
            for verdicts in list(left.values()):
                # Unmarked: grouped at its own first divergence (the refuted slip's bug).
                for verdict in [v for v in verdicts if id(v.failure) in unmarked]:
                    verdicts.remove(verdict)
                    first_key = causes.signature_of_json(verdict.divergence or {})
                    left[first_key] = left.get(first_key, []) + [verdict]
            if not cause.confirmed:
                # Its FAILs are told apart as those no slip explains.
                by_slip.remove(cause)
                for key, verdicts in alike.items():
                    taken = [v for v in verdicts if shown(v.path) in cause.scenarios]
                    if taken:
                        left[key] = left.get(key, []) + taken
        left = {k: vs for k, vs in left.items() if vs}
        shared = {k: [v for v in vs if v.failure and v.failure.left] for k, vs in left.items()}
        own = {k: [v for v in vs if v not in shared[k]] for k, vs in left.items()}
        own = {k: vs for k, vs in own.items() if vs}
        # The causes `later` shrinks after these keep their share of the
        # time left (the grouping's shrinks would spend it all): of bugs
        # shown only after another's (`explained` listed them), and of FAILs
        # that show a slip's bug beside their own, as `shared_joined` makes them.
        coming = len(shared_joined([causes.Cause(k) for k in own], shared)) - len(own)
        coming += sum(not c.scenarios for c in found)
        until = share(ends, len(own), len(own) + coming)
        rest, interrupted = grouped(own, options, args, until) if own else ([], False)
        rest = shared_joined(rest, shared)
        listed = later_bugs(by_slip + rest, failure_of)
        first = {name: c.slip for c in by_slip for name in c.scenarios if c.slip is not None}
        # A cause of FAILs that each show a slip's bug beside its own at one
        # answer (`left_over`) is shrunk as one shown after a slip's.
        first |= {v.failure.name: v.failure.beside for vs in shared.values() for v in vs}
        later = [
            c
            for c in listed
            if not c.scenarios or c.representative is None and set(c.scenarios) <= first.keys()
        ]
        for done, cause in enumerate(later if not interrupted else ()):
            shrinking[0] = cause.id
            with Ticker(progress, False):
                until = share(ends, 1, len(later) - done)
                later_shrunk(cause, failure_of, first, options, args, until)
    except KeyboardInterrupt:
        print("interrupted: the causes not shrunk yet are kept as they are")
        return found, True
    found = ordered(listed)
    print(f"{sum(map(len, alike.values()))} FAIL from {counted(len(found), 'cause')}:", flush=True)
    for number, cause in enumerate(found, start=1):
        print(said_cause(number, cause, options, found), flush=True)
    return found, interrupted


def share(ends: float, part: int, whole: int) -> float:
    """When `part` of `whole` shrinks still to come, each given as long,
    end, of the time left until `ends` (`time.monotonic`; inf: no end)."""
    now = time.monotonic()
    if ends == math.inf or ends <= now or not whole:
        return ends
    return now + (ends - now) * part / whole


def shared_joined(
    rest: list[causes.Cause], shared: dict[causes.Signature, list[Verdict]]
) -> list[causes.Cause]:
    """The causes no slip names, with the FAILs that show a slip's bug and
    another at one answer (`left_over`; not shrunk, since their first
    divergence is the slip's bug) joined to the one cause of what the slip
    leaves of them: of its provisional signature, else of its section; a
    cause of their own, not shrunk, when there is no one such cause."""
    for key, verdicts in shared.items():
        names = [shown(v.path) for v in verdicts]
        if not names:
            continue
        into = one_of(key, rest)
        if into is not None:
            into.scenarios.extend(names)
        else:
            rest.append(causes.Cause(key, names, slips_tried=True))
    return rest


def one_of(key: causes.Signature, found: list[causes.Cause]) -> causes.Cause | None:
    """The one cause of `found` of a provisional signature, or else the one
    of its section of SPEC (`Signature.area`); None when there is not one."""
    same = [c for c in found if c.signature.provisional() == key.provisional()]
    area = [c for c in found if c.signature.area() == key.area()]
    into = same if len(same) == 1 else area if len(area) == 1 else []
    return into[0] if into else None


def later_bugs(
    found: list[causes.Cause], failure_of: dict[str, slips.Failure]
) -> list[causes.Cause]:
    """The causes, each FAIL of a slip's cause in which the engine, past its
    first divergence, still differs from the model with that slip (another
    of its bugs shows after the slip's: slips.py `Failure.parting`) listed
    in the `after` of that other bug's cause. The FAILs of one slip that
    part from its model with one provisional signature are of one second
    bug, as FAILs no slip explains are grouped: the smallest of them tells
    which. It is another slip's, when the model with both slips gives the
    engine's answers up to there (`Failure.shown_with`); else the one cause
    no slip names of that provisional signature, or else of its section of
    SPEC (`one_of`); else a cause of its own, with no FAIL counted in it
    (each FAIL is counted once, in the cause of its first divergence),
    which `later_shrunk` shrinks. A FAIL that shows two bugs at one answer
    is listed in the cause of the one it is not counted in: of another
    slip's, when the model with both slips explains it (slips.py
    `together`); of the slip's whose bug a FAIL no slip explains shows
    beside another (`left_over`, `Failure.beside`). No engine: the slipped
    model's answers past each divergence were read as its slip was judged,
    and a model replay up to there is made for each other slip tried."""
    for cause in found:
        cause.after = []
    named = [c for c in found if c.slip is not None]
    unnamed = [c for c in found if c.slip is None]
    made: dict[causes.Signature, causes.Cause] = {}
    second: dict[tuple[str, causes.Signature], causes.Cause] = {}
    for name in [n for c in unnamed for n in c.scenarios if n in failure_of]:
        beside = failure_of[name].beside
        into = next((c for c in named if beside is not None and c.slip == beside), None)
        if into is not None:
            into.after.append(name)
    for cause in named:
        slip = cause.slip
        assert slip is not None
        parted = [(failure_of[n], n) for n in cause.scenarios if n in failure_of]
        for failure, name in sorted(parted, key=lambda fn: slips.size(fn[0])):
            if not failure.explained_by(slip):
                into = next((c for c in named if failure.together_with(slip, c.slip)), None)
                if into is not None:
                    into.after.append(name)
                continue
            parting = failure.parting(slip)
            if parting is None:
                continue
            key = causes.signature_of_json(parting)
            if (slip.id, key) not in second:
                into = next((c for c in named if c.slip and failure.shown_with(slip, c.slip)), None)
                second[slip.id, key] = (
                    into
                    or one_of(key, unnamed)
                    or made.setdefault(key, causes.Cause(key, slips_tried=True))
                )
            second[slip.id, key].after.append(name)
    return found + list(made.values())


def later_shrunk(
    cause: causes.Cause,
    failure_of: dict[str, slips.Failure],
    first: dict[str, slips.Slip],
    options: Options,
    args: Shrinking,
    ends: float = math.inf,
) -> None:
    """Shrink a cause of no FAIL counted (`later_bugs`: its bug shows only
    after another's, named by a slip), or of FAILs that each show a slip's
    bug beside its own at one answer (`left_over`), on the engine, from the
    smallest FAIL it shows in, against the model with the slip of that
    FAIL's first bug (`first`): while the engine's first divergence from
    that model is of the cause's provisional signature, and the slip
    changes no more of the model's answers than before, so that the first
    bug is left out where the shrink can leave it out (until `ends` at
    most). Removing events and shrinking texts cannot leave out a bug that
    what the cause needs shows (a free leaf's, where the zoomed leaves fit
    NODE): a constant lowered may (shrink.py `parted`), tried first on the
    FAIL, the shrink going on from there where the slip changes no answer;
    else the shrink, whose constants lowered while the bug shows without
    more of the slip's answers find any that `parted` would on where it
    stops (short of its budget). The steps share one budget (`spending`).
    Then its texts written plainly where it still shows so. When the slip
    changes none of the answers at the end, this bug shows there alone, as
    the engine's first divergence from SPEC's model (`Cause.alone`)."""
    failure = min(
        (failure_of[n] for n in cause.scenarios or cause.after if n in failure_of),
        key=lambda f: (len((f.longer or f.scenario).events), f.name),
    )
    slip, key = first[failure.name], cause.signature.provisional()
    profile, lacks = failure.profile, failure.lacks
    whole = failure.longer or failure.scenario
    budget = spending(args, ends)
    engine = make_engine(options)
    fewest = [math.inf]

    def still(scenario: Scenario, most: float | None = None) -> bool:
        changed = slips.differing_answers(scenario, slip, profile, lacks)
        if changed is None or len(changed) > (fewest[0] if most is None else most):
            return False
        found = slips.against(engine, scenario, slip, profile, lacks)
        if not found or causes.signature(found) != key:
            return False
        fewest[0] = len(changed)
        return True

    def alone(scenario: Scenario) -> bool:
        return still(scenario, 0)

    try:
        if not still(whole):
            return
        # Each step spends what the ones before it left of one budget.
        lowered = parted(whole, budget.counting(alone), *budget.left()) if fewest[0] else None
        small = lowered or simplify(whole, budget.counting(still), *budget.left())
        # Its texts written plainly where it still shows so: a bug of the
        # engine's about text then shows neither (shrink.py `plain_texts`).
        plain = plain_texts(small)
        small = plain if plain != small and still(plain) else small
    except EngineFault:
        return
    finally:
        engine.close()
    cause.alone = fewest[0] == 0
    cause.representative = failure.name
    cause.events_before = len(whole.events)
    cause.signature = key.keeping(small)
    kept(cause, small, profile, options, args.regressions, f"the model with {slip.id}")


def unexplained(
    alike: dict[causes.Signature, list[Verdict]], explained: set[str]
) -> dict[causes.Signature, list[Verdict]]:
    """The FAILs no slip explains (not named in `explained`), by provisional signature."""
    left = {k: [v for v in vs if shown(v.path) not in explained] for k, vs in alike.items()}
    return {k: vs for k, vs in left.items() if vs}


def named_by(
    cause: causes.Cause,
    failure_of: dict[str, slips.Failure],
    options: Options,
    args: Shrinking,
    ends: float,
    named: list[causes.Cause],
) -> list[slips.Failure]:
    """A slip's cause shrunk (`slip_shrunk`, the slips of the other causes
    `named` kept from showing first), and where the engine refutes its slip
    on the shrunk scenario, named by the next of its other slips
    (`Cause.fallbacks`) that explains each FAIL the refuted one explained
    alone, and shrunk again, until one is confirmed, none is left,
    `FALLBACKS` were tried or the shrinks' time is spent (`ends`): as far
    as the engine was read, its FAILs may not tell the bug's rule from a
    slip that mimics it. Each refuted slip is said; with none confirmed,
    the cause is left unconfirmed (its FAILs are grouped as those no slip
    explains). The FAILs of `failure_of` marked as showing a refuted slip's
    bug beside another are marked again (`beside`): those left unmarked."""
    tried: list[slips.Slip] = []
    while True:
        slip = cause.slip
        assert slip is not None
        tried.append(slip)
        others = [c.slip for c in named if c is not cause and c.slip is not None]
        slip_shrunk(cause, failure_of, options, args, ends, others)
        if cause.confirmed:
            break
        own = [failure_of[n] for n in cause.scenarios if n in failure_of]
        own = [f for f in own if f.explained_by(slip)]
        left = [s for s in map(slips.named, cause.fallbacks) if s not in tried]
        left = left if time.monotonic() < ends and len(tried) <= FALLBACKS else []
        after = next((s for s in left if all(f.explained_by(s) for f in own)), None)
        then = "its FAILs are grouped as those no slip explains"
        if after is not None:
            then = f"named by {after.id} (it explains its FAILs too) if the engine agrees with that"
        print(
            f"note: {cause.id}: the engine does not agree with the slip on its shrunk "
            f"scenario: {then}"
        )
        if after is None:
            break
        cause.signature = replace(cause.signature, slip=after.id)
    final = cause.slip if cause.confirmed else None
    marked = [f for f in failure_of.values() if f.beside in tried and f.beside != final]
    return [f for f in marked if not beside(f, final)]


def beside(failure: slips.Failure, slip: slips.Slip | None) -> bool:
    """A FAIL marked as showing a refuted slip's bug beside another at one
    answer (`left_over`): marked with `slip`, the one that names the cause
    now, where that too leaves something of its diverging answer (the
    mark's signature kept); else unmarked, so that it is grouped and shrunk
    as a FAIL no slip explains, no bug claimed for the refuted slip:
    whether it is still marked."""
    if slip is not None and failure.left_by(slip) is not None:
        failure.beside = slip
        return True
    failure.beside, failure.left = None, ""
    return False


def slip_shrunk(
    cause: causes.Cause,
    failure_of: dict[str, slips.Failure],
    options: Options,
    args: Shrinking,
    ends: float = math.inf,
    others: Iterable[slips.Slip] = (),
) -> None:
    """Shrink a slip's cause against the model alone (until `ends` at
    most): its smallest FAIL that the slip explains alone (in one it
    explains beside another slip, `together`, that bug shows at the same
    answer), while the model and the model with the slip answer it otherwise, and
    before the model with any of `others` (the slips of the run's other
    causes) does, so that the engine's other bugs named show after it if
    at all (no engine: a try costs a few model replays); then the engine replayed once
    on what is left, which must agree with the slipped model there. The
    shrunk scenario is written only when it does; when another bug of the
    engine shows after this one there, it is shrunk on, on the engine, until
    the engine agrees with the slipped model on all of it (the bug alone):
    a constant lowered first (shrink.py `parted`: it can leave out what no
    removal of events can), else the shrink, these two sharing
    --shrink-tries (`spending`). All of it within one deadline:
    --shrink-seconds from its start, and `ends`."""
    slip = cause.slip
    assert slip is not None
    own = [failure_of[n] for n in cause.scenarios if n in failure_of]
    # Not one where another bug shows at the same answer (slips.py `together`).
    own = [f for f in own if f.explained_by(slip)] or own
    smallest = min(own, key=lambda f: (len(f.scenario.events), f.name))
    budget = spending(args, ends)
    profile, lacks = smallest.profile, smallest.lacks
    shows = slips.shows_first(slip, others, profile, lacks)
    if not shows(smallest.scenario):
        shows = slips.shows(slip, profile, lacks)
    seconds, _ = budget.left()
    small = simplify(smallest.scenario, shows, seconds, max(args.shrink_tries, slips.TRIES))
    engine = make_engine(options)
    try:
        cause.alone = slips.confirmed(engine, small, slip, profile, lacks, whole=True)
        cause.confirmed = cause.alone or slips.confirmed(engine, small, slip, profile, lacks)
        if cause.confirmed and not cause.alone:
            # Another bug of the engine shows after this one: its texts
            # written plainly, or else shrunk on the engine, from what is
            # left, until it shows this one alone.
            def alone(scenario: Scenario) -> bool:
                return shows(scenario) and slips.confirmed(
                    engine, scenario, slip, profile, lacks, whole=True
                )

            plain = plain_texts(small)
            if alone(plain):
                small, cause.alone = plain, True
            else:
                counted = budget.counting(alone)
                fewer = parted(small, counted, *budget.left())
                fewer = fewer or simplify(small, counted, *budget.left())
                if fewer != small:
                    small, cause.alone = fewer, True
    except EngineFault:
        cause.confirmed = cause.confirmed or False
    finally:
        engine.close()
    cause.representative = smallest.name
    cause.events_before = len(smallest.scenario.events)
    if cause.confirmed:
        kept(cause, small, profile, options, args.regressions, "the model with the slip")


def kept(
    cause: causes.Cause,
    small: Scenario,
    profile: Profile,
    options: Options,
    folder: Path,
    against: str,
) -> None:
    """A cause's shrunk scenario (shrunk from its representative `against`
    a model, in words), marked and noted so, and written (`write_shrunk`)."""
    assert cause.representative is not None
    notes = {
        "shrunk_from": Path(cause.representative).name,
        "events_before": cause.events_before,
        "cause": cause.id,
        "kept": cause.said(),
    }
    generator = f"bridge corpus: cause {cause.id}, shrunk against {against}"
    cause.shrunk = marked(replace(small, generator=generator, notes=notes), profile)
    write_shrunk(cause, profile, options, folder)


def grouped(
    alike: dict[causes.Signature, list[Verdict]],
    options: Options,
    args: Shrinking,
    ends: float = math.inf,
) -> tuple[list[causes.Cause], bool]:
    """The causes of a run's FAILs (bridge/checking/causes.py), each shrunk
    scenario written to --regressions as it comes, all said at the end, no
    shrink going on past `ends` (`time.monotonic`); and
    whether an interruption (Ctrl-C, SIGTERM) cut the grouping short: the
    FAILs not grouped yet are then each area's cause, not shrunk."""
    if not alike:
        return [], False
    fails = sum(map(len, alike.values()))
    shrinking = (
        f"a scenario of each shrunk ({shrink_budget(args)}{within(ends)} at most)"
        if args.shrink_tries
        else "nothing shrunk (--shrink-tries 0)"
    )
    print(
        f"grouping {fails} FAIL into causes: {counted(len(alike), 'kind')} of first divergence, "
        f"{shrinking} ...",
        flush=True,
    )
    found: list[causes.Cause] = []
    left = dict(alike)
    seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds

    def progress(elapsed: float) -> str:
        done = f"{len(alike) - len(left)} of {len(alike)}"
        return f"  ... causes: {done} kinds of first divergence grouped ({elapsed:.0f} s)"

    interrupted = False
    try:
        with Ticker(progress, False):
            shrinks = find_causes(alike, options, args.jobs, args.shrink_tries, seconds, ends)
            for made, profile in shrinks:
                grouped_now = {name for cause in made for name in cause.scenarios}
                left = unexplained(left, grouped_now)
                for cause in made:
                    if cause.shrunk is not None and profile is not None:
                        write_shrunk(cause, profile, options, args.regressions)
                found += made
    except KeyboardInterrupt:
        print("interrupted: the FAILs not grouped yet are each area's cause, not shrunk")
        found += [c for made, _ in find_causes(left, options, 1, 0) for c in made]
        interrupted = True
    for cause in found:
        cause.slips_tried = True
    return ordered(found), interrupted


def within(ends: float) -> str:
    """What is left of the shrinks' time, as the grouping line says it ("" for no bound)."""
    return "" if ends == math.inf else f", all within {max(ends - time.monotonic(), 0):.0f} s"


def ordered(found: list[causes.Cause]) -> list[causes.Cause]:
    """Causes, the one of the most scenarios first."""
    return sorted(found, key=lambda c: (-len(c.scenarios), c.id))


def write_shrunk(cause: causes.Cause, profile: Profile, options: Options, folder: Path) -> None:
    """Write a cause's shrunk scenario and its transcript in `folder`; a
    folder that cannot be written is said, and the cause kept without it."""
    assert cause.shrunk is not None
    name = f"cause-{re.sub(r'[^A-Za-z0-9._-]+', '-', cause.id)}-{slug(options.engine)}"
    if options.regression is None:
        return
    try:
        cause.written = str(options.regression(cause.shrunk, profile, folder, name))
    except (UsageError, OSError) as error:
        print(f"note: cause {cause.id}: its shrunk scenario is not written: {error}")


def names_shown(names: list[str]) -> str:
    """Scenarios by their file names, the first few (`SHOWN`) and how many more."""
    files = [Path(name).name for name in names]
    more = f" and {len(files) - SHOWN} more" if len(files) > SHOWN else ""
    return ", ".join(files[:SHOWN]) + more


def said_cause(
    number: int, cause: causes.Cause, options: Options, found: Sequence[causes.Cause] = ()
) -> str:
    """A cause in a few lines: its id and what it is, its scenarios (each
    FAIL counted in the cause of its first divergence; those of other
    causes its bug shows in after theirs listed, `Cause.after`), and its
    shrunk scenario with the command that replays it."""
    after = f"{counted(len(cause.after), 'FAIL')} of other causes, after their bugs"
    if cause.scenarios:
        head = f"{counted(len(cause.scenarios), 'scenario')}: {names_shown(cause.scenarios)}"
    else:
        head = f"no FAIL of its own; it shows in {after} (counted there): "
        head += names_shown(cause.after)
    lines = [f"  {number}. {cause.id}: {head}", f"     {cause.said()}"]
    if cause.scenarios and cause.after:
        lines.append(f"     it shows too in {after} (counted there): {names_shown(cause.after)}")
    for k, other in enumerate(found, start=1):
        shared = [name for name in cause.scenarios if name in other.after]
        if other is not cause and shared:
            lines.append(
                f"     in {len(shared)} of these another bug shows after this one's: cause {k}"
            )
    if cause.shrunk is not None and cause.written is not None:
        assert cause.representative is not None
        lines.append(
            f"     shrunk from {Path(cause.representative).name}, {cause.events_before} events "
            f"to {len(cause.shrunk.events)}: {cause.written}"
        )
        if cause.slip is not None:
            lines.append(
                "     it shows this bug alone (the engine agrees with the slip on all of it)"
                if cause.alone
                else "     this bug shows first there; another of the engine's shows after it"
            )
        elif not cause.scenarios:
            lines.append(
                "     it shows this bug alone (the other cause's slip changes no answer there)"
                if cause.alone
                else "     this bug shows there after the bug of the cause its FAILs are counted in"
            )
        lines.append(f"     replay it: {reproduction(Path(cause.written), options)}")
    return "\n".join(lines)
