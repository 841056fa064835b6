"""The run that checks an engine on many scenarios at once (`python -m bridge
corpus`): each scenario replayed and compared as its answers arrive, one
engine process kept from one scenario to the next when it takes sessions,
and the scenarios shared among worker processes."""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import islice
from multiprocessing import TimeoutError as NoResultYet
from multiprocessing import get_context, util
from pathlib import Path
from typing import Any

from bridge.checking import purpose
from bridge.checking.adopt import Shadow
from bridge.checking.beyond import Beyond, beyond
from bridge.checking.causes import (
    Cause,
    Member,
    Replays,
    Signature,
    group,
    signature,
    signature_of_json,
)
from bridge.checking.changes import Trial, proposal_of
from bridge.checking.compare import Result, add_states, run
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import add_delivery
from bridge.checking.shrink import cut, marked, shrunk_note
from bridge.checking.slips import PAST, Failure
from bridge.checking.verdict import (
    Lacked,
    Outside,
    Skipped,
    Verdict,
    divergence_json,
    lacks_for,
    outcome,
    within,
)
from bridge.formats import transcript
from bridge.formats.capabilities import Capability, ignored_fields, only_tests
from bridge.formats.invocation import command
from bridge.formats.kit import shown
from bridge.formats.layout import read_checked, stream_checked, unique_name
from bridge.formats.limits import Limits
from bridge.formats.profile import SPEC, agreement, declared, to_json
from bridge.runs import progress
from bridge.runs.ending import ignore_ending, on_ending, tracker_started
from bridge.runs.progress import Heartbeat
from bridge.runs.tally import Tally
from bridge.wire import factory
from bridge.wire.engine import Engine, EngineFault, Ready, limits_of, profile_of
from bridge.wire.inprocess import ModelEngine
from bridge.wire.process import ProcessEngine
from bridge.wire.stream import Exchange, exchanges
from model.profile import Profile
from scenarios.format import Events, Scenario, ScenarioError

Page = Callable[..., Any]
"""What writes one failing scenario's HTML report (`corpus --report`), given
also the command that reproduces it and the engine's stderr tail:
bridge/outputs/page.py `write_divergence_report`."""

Regression = Callable[[Scenario, Profile, Path, str], Path]
"""What writes a cause's shrunk scenario and its transcript in a folder,
under a name, checking the folder first (`--regressions`):
bridge/outputs/regressions.py `write_checked`."""

STDERR_SHOWN = 4000
"""How many characters of the end of an engine's stderr a report shows."""


@dataclass(frozen=True)
class Options:
    """How `corpus` checks each scenario."""

    engine: str
    timeout: float = 10.0
    profile: Profile | None = None
    """The profile of `--profile`; None to take the one the engine declares."""
    live: bool = False
    keep_going: bool = False
    quiet: bool = False
    report: Path | None = None
    """A folder for one HTML report per failing scenario (`corpus --report`)."""
    page: Page | None = None
    """What writes those reports."""
    regression: Regression | None = None
    """What writes each cause's shrunk scenario (none: they are not written)."""
    capabilities: frozenset[str] | None = None
    """The capabilities of `--capabilities`; None to take the ones the engine declares."""
    constants: Limits | None = None
    """The constants of `--constants`; None to take the ones the engine declares."""
    trial: Trial | None = None
    """A hypothesis of `diagnose`'s (its proposal), the model's side only:
    each scenario is expected under its profile and lacking what it lacks,
    whatever the engine declares (held to --profile and --capabilities only)."""
    program: str = field(default_factory=command)
    """The runner as the user started it, for the command a report repeats."""


@dataclass(frozen=True)
class Run:
    """What a corpus run checked, and with what."""

    engine: str
    agreement: str
    corpus_version: int | None
    seconds: float
    verdicts: list[Verdict]
    known: dict[str, str]
    """Scenarios listed as known failures (by file name or stem), each with
    the status it is expected to end in (bridge/formats/usage.py)."""
    causes: list[Cause] = field(default_factory=list)
    """The causes of its FAILs (bridge/checking/causes.py), the cause of the
    most scenarios first."""
    declared: str = ""
    """The profile the engine was checked under, in a few words (`profile: SPEC`)."""
    floor: float = 0.0
    """`--min-compared`: the fraction of the events the run must compare."""
    shard: str | None = None
    """`K/N` for a shard of a campaign, whose floor the merged report is held to."""
    started: str | None = None
    """When the run began, in UTC (ISO 8601, to the second); None when not known."""

    def cause_of(self, verdict: Verdict) -> str | None:
        """The id of the cause a scenario's FAIL is of; None when it is of none."""
        name = shown(verdict.path)
        return next((c.id for c in self.causes if name in c.scenarios), None)

    def beyond(self) -> list[Beyond]:
        """What was checked beyond each cause's first divergences (`--keep-going`)."""
        return beyond(
            (c.id, [v for v in self.verdicts if shown(v.path) in c.scenarios]) for c in self.causes
        )

    def coverage(self) -> Coverage:
        """What the run compared, summed over the scenarios it could read."""
        total = Coverage()
        for verdict in self.verdicts:
            if verdict.coverage is not None:
                total += verdict.coverage
        return total

    def tally(self) -> Tally:
        """The run's outcomes and what it compared: its verdict."""
        return Tally.of(
            self.verdicts, self.known, self.coverage(), self.floor, self.shard is not None
        )

    def summary(self) -> str:
        """The run's last line (bridge/runs/tally.py), with the number of its
        FAILs' causes, and of its FAILs that show a second cause's bug too."""
        twice = len({name for cause in self.causes for name in cause.after})
        return self.tally().summary(self.engine, self.declared, len(self.causes), twice)


class StartFault(EngineFault):
    """An engine fault before the engine answered the scenario's header: it
    could not start, or did not speak the protocol."""


def make_engine(options: Options) -> Engine:
    return factory.engine(options.engine, options.timeout, options.profile or SPEC)


KEPT: dict[Options, Engine] = {}
"""An engine process of each worker that declared `sessions`, kept from one
scenario to the next (bridge/PROTOCOL.md), so a corpus starts it once."""


def kept_engine(options: Options) -> Engine:
    return KEPT.pop(options, None) or make_engine(options)


def close_kept() -> None:
    """End the engines kept for another scenario (and wait for them)."""
    while KEPT:
        KEPT.popitem()[1].close()


def keep(subject: Engine, options: Options) -> bool:
    """Keep an engine that did not fault, if it takes another scenario."""
    if isinstance(subject, ProcessEngine) and subject.ready.sessions:
        KEPT[options] = subject
        return True
    return False


def replay_checked(
    path: Path,
    scenario: Scenario,
    subject: Engine,
    options: Options,
    coverage: Coverage | None = None,
    past: int = 0,
) -> tuple[Profile, Result, Ready]:
    """Start the engine on the scenario and compare its answers, as they
    arrive, with the scenario's transcript (or the model) under the engine's
    profile and capabilities; Skipped when the engine cannot take the
    scenario, or when a replay that agreed did not test what the scenario
    exists for (bridge/checking/purpose.py). Also what the engine said to
    the header. What was compared is counted in `coverage`, with the
    scenario's events counted after the replay (a streamed scenario is read
    only as far as the replay went). A scenario outside the constants of
    `--constants` is skipped before the engine is started on it, one outside
    those the engine declares before any event is sent. A replay that stops
    at its divergence reads `past` answers more (compare.py `run`), for
    judging rule slips past it (slips.py `PAST`)."""
    if options.constants is not None:
        within(scenario, options.constants)
    try:
        ready = subject.start(scenario)
    except EngineFault as fault:
        raise StartFault(str(fault)) from None
    within(scenario, limits_of(ready.constants, options.constants, subject.name))
    if ready.unsupported:
        raise Skipped(ready.cannot_take())
    profile, lacks = expected_under(scenario, ready, options, subject.name)
    coverage = coverage or Coverage()
    coverage.lacking = tuple(c.name for c in lacks)
    adopting = None
    if options.keep_going:
        adopting = partial(Shadow, profile, scenario, ignored_fields(lacks))
    with Heartbeat(path.name, None, options.quiet) as beat:
        result = run(
            exchanges(path, scenario, profile, options.live, lacks),
            subject,
            ready,
            None,
            options.keep_going,
            beat,
            lacks,
            coverage,
            adopting,
            past=past,
        )
    why = None
    if result.unsupported is None and result.divergence is None and not coverage.stopped:
        # Before the count, which reads a streamed file's rest without its
        # events: the events never sent at its end are some of the purpose's.
        why = purpose.skipped(scenario, result)
    coverage.events = scenario.count()
    if result.unsupported is not None:
        raise Skipped(f"the engine does not support {result.unsupported}")
    if why is not None:
        raise Skipped(why)
    return profile, result, ready


def expected_under(
    scenario: Scenario, ready: Ready, options: Options, name: str
) -> tuple[Profile, tuple[Capability, ...]]:
    """The profile a scenario is expected under and the capabilities lacked:
    the engine's (declared, or `--profile` and `--capabilities`), or the
    trial's when `options` has one (`Options.trial`), the engine's own
    declaration still held to those options; Lacked when the scenario was
    made to test only what is lacked."""
    profile = profile_of(ready.profile, options.profile, name)
    lacks = lacks_for(scenario, ready, options.capabilities, name)
    if options.trial is None:
        return profile, lacks
    alone = only_tests(options.trial.lacks, scenario.notes)
    if alone is not None:
        raise Lacked(alone.name, alone.spec)
    return options.trial.profile, options.trial.lacks


def stderr_tail(subject: Engine) -> str:
    """The end of what an engine process wrote on stderr ("" for an engine in this process)."""
    if not isinstance(subject, ProcessEngine):
        return ""
    return bytes(subject.stderr).decode("utf-8", "replace")[-STDERR_SHOWN:]


def reproduction(path: Path, options: Options) -> str:
    """The command that checks this one scenario again and shrinks its
    divergence: under `diagnose`'s proposal, when `options` has one
    (`Options.trial`, passed as `compare --proposal`, the model's side only)."""
    engine = shlex.quote(options.engine)
    said = f"{options.program} compare {shlex.quote(shown(path))} --engine {engine}"
    if options.trial is None:
        return said
    return f"{said} --proposal {shlex.quote(json.dumps(proposal_of(options.trial)))}"


def check(path: Path, options: Options) -> Verdict:
    """Check one scenario: the engine's answers against its transcript (or the
    model), stopping at the first divergence unless `keep_going`."""
    began = time.monotonic()

    def verdict(status: str, **more: Any) -> Verdict:
        return Verdict(path, status, time.monotonic() - began, **more)

    try:
        scenario = stream_checked(path)
    except ScenarioError as error:
        return verdict("BAD", reason=str(error))
    try:
        return checked(path, scenario, options, verdict)
    except ScenarioError as error:
        return verdict("BAD", reason=str(error))
    finally:
        if isinstance(scenario.events, Events):
            scenario.events.close()


def checked(
    path: Path, scenario: Scenario, options: Options, verdict: Callable[..., Verdict]
) -> Verdict:
    """`check` of a scenario streamed from its file: its events are read as
    the replay sends them, so a replay that stops early reads no further (a
    bad line further on is not looked at); its count of events is had after
    the replay, counting the lines not read without parsing them."""
    subject = kept_engine(options)
    sound = False
    coverage = Coverage()
    try:
        profile, result, ready = replay_checked(path, scenario, subject, options, coverage, PAST)
    except Skipped as skipped:
        sound = True
        count = scenario.count()
        lacked = (skipped.capability,) if isinstance(skipped, Lacked) else ()
        return verdict(
            "SKIPPED",
            reason=str(skipped),
            coverage=Coverage(count, skipped=count, left_out=Counter(lacked)),
            outside=str(skipped.accepted) if isinstance(skipped, Outside) else "",
            family=str(scenario.notes.get("family", "")),
        )
    except (EngineFault, transcript.TranscriptError) as error:
        status = "FAULT" if isinstance(error, EngineFault) else "BAD"
        coverage.stopped = True
        coverage.events = scenario.count()
        return verdict(
            status, reason=str(error), at_start=isinstance(error, StartFault), coverage=coverage
        )
    else:
        sound = True
    finally:
        # A replay that stopped early is ended at the engine's next start.
        if not (sound and keep(subject, options)):
            subject.close()
    said = agreement(profile)
    named = declared(profile)
    notes = add_delivery(scenario, profile, result) + purpose.notes(scenario, result)
    about = {
        "engine": ready.engine,
        "profile": to_json(profile),
        "family": str(scenario.notes.get("family", "")),
    }
    if result.divergence is None:
        return verdict(
            "ok",
            answers=result.answers,
            agreement=said,
            declared=named,
            notes=notes,
            coverage=coverage,
            **about,
        )
    found = result.divergence
    tail = stderr_tail(subject)
    if options.report is not None or found.field == "started":
        # Both whole states cost a second start of the engine and a model
        # replay to the divergence: only for the report's page (and the
        # rule a wrong start breaks); `compare`, which the FAIL line names,
        # shows them.
        add_states(found, scenario, ModelEngine(profile), make_engine(options))
    page = None
    if options.report is not None and options.page is not None:
        page = f"{unique_name(path, options.engine)}.html"
        names = ("expected", subject.name)
        command = reproduction(path, options)
        options.page(
            options.report / page,
            scenario,
            found,
            names,
            profile,
            command=command,
            stderr=tail,
            coverage=coverage,
        )
    report = found.report(shown(path), ("expected", subject.name))
    if result.after is not None:
        report += "\n" + result.after.report(shown(path), ("expected", subject.name))
    reason = found.summary()
    if found.adopted:
        past = "none" if result.after is None else result.after.summary()
        reason += f"\nadopted; a divergence after adoption: {past}"
    return verdict(
        "FAIL",
        failure=failure_of(path, scenario, result, profile, ready, options.live),
        reason=reason,
        report=report,
        divergence=divergence_json(found),
        after=None if result.after is None else divergence_json(result.after),
        answers=result.answers,
        agreement=said,
        declared=named,
        notes=notes,
        coverage=coverage,
        page=page,
        stderr=tail,
        **about,
    )


def failure_of(
    path: Path, scenario: Scenario, result: Result, profile: Profile, ready: Ready, live: bool
) -> Failure | None:
    """What explaining a FAIL by a rule slip needs (slips.py `Failure`): the
    scenario as the replay read it, up to the divergence (its tail, streamed,
    still not read), and up to the last answer read past it (compare.py
    `Result.past`); None when it cannot be."""
    found, lacks = result.divergence, result.lacks
    if found is None or found.answer is None:
        return None
    at = [line["at"] for line in found.lines if "at" in line]
    try:
        head = replace(scenario, events=scenario.events[: max(at) + 1]) if at else scenario
        # The answers the engine gave before the divergence, as the run
        # compared them: a transcript's are read, not replayed.
        sent = (e for e in exchanges(path, head, profile, live, lacks) if e.sent)
        expected = [e.expected for e in islice(sent, found.index + 1)]
        longer = cut(scenario, replace(found, lines=[*found.lines, *(p[0] for p in result.past)]))
        head = cut(head, found)
    except (ScenarioError, transcript.TranscriptError):
        return None
    return Failure(
        shown(path),
        head,
        profile,
        lacks,
        found.index,
        found.answer,
        signature(found).id,
        ready.rule_names,
        expected,
        past=result.past,
        longer=longer if result.past else None,
    )


def _check_job(job: tuple[Path, Options]) -> Verdict:
    """`check`, with any failure of the bridge itself turned into a verdict
    that shows it, so one scenario cannot take the run down."""
    began = time.monotonic()
    try:
        return check(*job)
    except Exception:
        trace = traceback.format_exc()
        return Verdict(
            job[0], "ERROR", time.monotonic() - began, reason=f"the bridge failed:\n{trace}"
        )


Pool = get_context("spawn").Pool
"""The pools of `largest_first` start their workers afresh (spawn, not fork):
a fork copies every lock another thread of the caller holds (a test runner's,
a progress thread's) locked, and a worker could wait on one for ever."""


class Workers:
    """`jobs` worker processes (this process alone for one job) that take
    lists of work in turn (`each`), so that a run of several phases starts
    them, and the engines they keep for another scenario, once. `counter`,
    a shared value (`Counter`), is given to each worker (bridge/runs/progress.py
    `share`). Use it in `with`: leaving it ends the workers, at once on an
    exception (Ctrl-C), and the engines kept. `behind`: the workers, and the
    engines they start, run BEHIND this process (`_worker`), so that what
    this process does while it waits for them (`each`'s `idle`) is not
    left for after them."""

    def __init__(self, jobs: int, counter: Any = None, behind: bool = False) -> None:
        self.jobs, self.counter, self.behind = jobs, counter, behind
        self.pool: Any = None

    def __enter__(self) -> Workers:
        if self.jobs > 1:
            tracker_started()
            initargs = (self.counter, BEHIND if self.behind else 0)
            self.pool = Pool(self.jobs, initializer=_worker, initargs=initargs)
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if self.pool is None:
            close_kept()
            return
        if kind is None:
            # Every result is in: the workers end on their own. The SIGTERM of
            # the pool's exit could arrive just before a worker blocks on the task
            # queue's lock and be lost there, leaving the run waiting for ever.
            self.pool.close()
            self.pool.join()
        else:
            self.pool.terminate()

    def each(
        self,
        function: Callable[[Any], Any],
        work: list[Any],
        path: Callable[[Any], Path],
        idle: Callable[[], bool] | None = None,
    ) -> Iterator[Any]:
        """`function` of each piece of work: in the order given in this
        process, or the largest scenario files first (so that no long
        scenario is left running alone at the end) in the workers, yielding
        each as it comes. While no result is in, `idle` is called, for as
        long as it says it did something (else the next result is waited
        for)."""
        if self.pool is None:
            yield from map(function, work)
            return
        work = sorted(work, key=lambda job: -path(job).stat().st_size)
        results = self.pool.imap_unordered(function, work)
        busy = idle is not None
        while True:
            try:
                result = results.next(0 if busy else None)
            except StopIteration:
                return
            except NoResultYet:
                assert idle is not None
                busy = idle()
                continue
            busy = idle is not None
            yield result


def largest_first(
    function: Callable[[Any], Any],
    work: list[Any],
    path: Callable[[Any], Path],
    jobs: int,
    idle: Callable[[], bool] | None = None,
) -> Iterator[Any]:
    """`function` of each piece of work (`Workers.each`), `jobs` at a time,
    the workers behind this process when it has `idle` work."""
    with Workers(jobs if len(work) > 1 else 1, behind=idle is not None) as workers:
        yield from workers.each(function, work, path, idle)


def check_all(
    paths: list[Path], options: Options, jobs: int, idle: Callable[[], bool] | None = None
) -> Iterator[Verdict]:
    """`check` every scenario, `jobs` at a time (`largest_first`), `idle`
    called while no verdict is in (`Workers.each`)."""
    work = [(p, options) for p in paths]
    yield from largest_first(_check_job, work, lambda j: j[0], jobs, idle)


BEHIND = 5
"""How much nicer (os.nice) workers behind the run's process are: enough
that the run's process, one thread, takes a core of two while they take
the other (its weight three times theirs), not so much that another
program's processes leave them none."""


def _worker(counter: Any = None, nicer: int = 0) -> None:
    """Set up a pool worker to end its engines when the pool ends it: the
    pool's SIGTERM (also on Ctrl-C or one of ENDING to the run, which a
    terminal also sends to the workers, in the run's process group) is a
    quiet exit that unwinds the scenario being checked, and the engines kept
    for another scenario are closed as the worker exits. Ctrl-C is left to
    the parent, which ends the pool. `counter` is the run's shared count;
    `nicer`, how much nicer than the parent the worker runs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nicer:
        os.nice(nicer)
    on_ending(_exit)
    util.Finalize(None, close_kept, exitpriority=10)
    progress.share(counter)


def _exit(signum: int, _frame: object) -> None:
    # Unwinding ends the worker's engines; should it wait on something for
    # ever, SIGALRM's default ends it 5 s later.
    ignore_ending()
    signal.alarm(5)
    raise SystemExit(128 + signum)


SAME_FAULTS = 3
"""After this many first scenarios all ended in a fault at the engine's start, a run stops."""


def unless_broken(verdicts: Iterator[Verdict], count: int = SAME_FAULTS) -> Iterator[Verdict]:
    """The verdicts as they come, until the first `count` are all faults at
    the engine's start (it cannot start, or fails at the header): then an
    EngineFault saying so once, instead of one more line per scenario."""
    first: list[Verdict] = []
    try:
        for verdict in verdicts:
            yield verdict
            first.append(verdict)
            if len(first) == count and all(v.at_start for v in first):
                raise EngineFault(
                    f"the engine failed at its start on each of the first {count} scenarios, "
                    f"stopping: {verdict.reason}"
                )
    finally:
        close = getattr(verdicts, "close", None)
        if close is not None:
            close()


Failing = tuple[Path, int | None, Signature, Failure | None]
"""A failing scenario as grouping takes it: its path, the position of its
first divergence (None at the final detail request), that divergence's
provisional signature, and what the run kept of it (slips.py `Failure`:
the scenario up to the divergence; None when it kept none)."""

CauseJob = tuple[Signature, list[Failing], Options, int, float, float]
"""One area's failing scenarios (causes.py `Signature.area`; named by the
provisional signature of most of them), how to check them, shrinking's
budget for each representative (tries, seconds), and when all shrinking
ends (`time.monotonic`; inf for never)."""

Grouped = tuple[list[Cause], Profile | None]
"""The causes of one area, their shrunk scenarios marked
for writing under the profile (None when none was shrunk)."""


def up_to(exchanges: Iterator[Exchange], position: int | None) -> Iterator[Exchange]:
    """The exchanges up to the one of the event at `position` (all of them
    for None): what a replay sends to reach a divergence there."""
    for exchange in exchanges:
        yield exchange
        if position is not None and exchange.position == position:
            return


def member(path: Path, position: int | None, subject: Engine, options: Options) -> Any:
    """The failing scenario at `path` as grouping takes it (causes.py
    `Member`), replayed again up to its first divergence, and a causes.py
    `Replays` of the engine as it declared itself there (its profile, what
    it lacks, the constants it accepts); None when it no longer diverges
    there."""
    scenario = read_checked(path)
    ready = subject.start(scenario)
    profile, lacks = expected_under(scenario, ready, options, subject.name)
    sent = up_to(exchanges(path, scenario, profile, options.live, lacks), position)
    found = run(sent, subject, ready, None, True, lacks=lacks).divergence
    if found is None:
        return None
    accepted = limits_of(ready.constants, options.constants, subject.name)
    replays = Replays(subject, profile, lacks, accepted=accepted)
    return Member(shown(path), signature(found), cut(scenario, found)), replays


def kept_member(failure: Failure | None, key: Signature, replays: Replays | None) -> Member | None:
    """A failing scenario as the run kept it, without replaying it: once
    one replay has shown how the engine declares itself (`replays`), under
    the same profile and lacking the same; None otherwise."""
    if failure is None or replays is None:
        return None
    if (failure.profile, failure.lacks) != (replays.profile, replays.lacks):
        return None
    return Member(failure.name, key, failure.scenario)


def causes_of(job: CauseJob) -> Grouped:
    """The causes of one area's failing scenarios (causes.py `group`), each
    shrunk scenario marked for writing. The first is replayed again (how
    the engine declares itself), the others taken as the run kept them. A
    scenario that cannot be replayed again as it failed, or an engine that
    faults, leaves what it touches in a cause of its provisional signature
    not shrunk, never an error; so does the deadline, except that the
    scenarios it left untried go to the one cause of their provisional
    signature shrunk when there is one (as `group` joins those a shrunk
    scenario's kinds no longer show)."""
    _, failing, options, tries, seconds, deadline = job
    subject = make_engine(options)
    members: list[Member] = []
    unreplayed: dict[Signature, list[str]] = {}
    replays: Replays | None = None
    faulted = False
    try:
        for path, position, key, failure in failing:
            made = kept_member(failure, key, replays)
            if made is not None:
                members.append(made)
                continue
            try:
                made = None if faulted else member(path, position, subject, options)
            except EngineFault:
                # The rest are not tried: a hanging engine would cost each its timeout.
                faulted = True
                subject.close()
            except (ScenarioError, Skipped, transcript.TranscriptError):
                subject.close()
            if made is None or made[0].signature != key:
                unreplayed.setdefault(key, []).append(shown(path))
                continue
            members.append(made[0])
            replays = made[1]
        causes: list[Cause] = []
        if replays is not None:
            replays.tries, replays.seconds, replays.deadline = tries, seconds, deadline
            causes = group(members, replays)
            if replays.late:
                causes = untried_joined(causes)
    finally:
        subject.close()
    for key, names in unreplayed.items():
        alone = next((c for c in causes if c.signature == key), None)
        if alone is None:
            causes.append(alone := Cause(key))
        alone.scenarios.extend(names)
    profile = None if replays is None else replays.profile
    for cause in causes:
        if cause.shrunk is not None and profile is not None:
            origin = Path(cause.representative or "").name
            notes = {
                **shrunk_note(origin, cause.signature.provisional().id),
                "events_before": cause.events_before,
                "cause": cause.id,
                "kept": cause.said(),
            }
            generator = f"bridge corpus: cause {cause.id}, shrunk against {options.engine}"
            shrunk = replace(cause.shrunk, generator=generator, notes=notes)
            cause.shrunk = marked(shrunk, profile)
    return causes, profile


def untried_joined(causes: list[Cause]) -> list[Cause]:
    """The causes, each not shrunk (what the deadline left untried) joined
    to the one shrunk cause of its provisional signature, when there is
    exactly one; with none of its signature, to the area's one shrunk cause,
    when there is exactly one (untried, its FAILs show no other bug than
    the one the area was said to be before shrinking)."""
    kept: list[Cause] = []
    tried = [c for c in causes if c.shrunk is not None]
    for cause in causes:
        shrunk = [c for c in tried if c.signature.provisional() == cause.signature.provisional()]
        area = [c for c in tried if c.signature.area() == cause.signature.area()]
        shrunk = shrunk or (area if len(area) == 1 else [])
        if cause.shrunk is None and len(shrunk) == 1:
            shrunk[0].scenarios.extend(cause.scenarios)
        else:
            kept.append(cause)
    return kept


def _causes_job(job: CauseJob) -> Grouped:
    """`causes_of`, with a failure of the bridge itself said on stderr and
    leaving the scenarios in a cause not shrunk, so that it cannot take the
    run down."""
    try:
        return causes_of(job)
    except Exception:
        said = traceback.format_exc().strip().splitlines()[-1]
        print(f"note: grouping {job[0].id} failed in the bridge: {said}", file=sys.stderr)
        return by_area(job[1]), None


def failing(verdicts: list[Verdict], known: dict[str, str]) -> dict[Signature, list[Verdict]]:
    """The FAILs of a run (not those listed as known failures), by the
    provisional signature of their first divergence (causes.py)."""
    alike: dict[Signature, list[Verdict]] = {}
    for verdict in verdicts:
        if outcome(verdict, known) == "FAIL" and verdict.divergence is not None:
            key = signature_of_json(verdict.divergence)
            alike.setdefault(key, []).append(verdict)
    return alike


def find_causes(
    alike: dict[Signature, list[Verdict]],
    options: Options,
    jobs: int,
    tries: int,
    seconds: float = math.inf,
    deadline: float = math.inf,
) -> Iterator[Grouped]:
    """The causes of each area's FAILs (causes.py `Signature.area`), `jobs`
    areas at a time, as each is grouped, no shrink going past `deadline`
    (`time.monotonic`); with no `tries`, each area is one cause, not
    shrunk, without a replay."""
    areas: dict[str, list[Failing]] = {}
    for key, verdicts in sorted(alike.items(), key=lambda kv: -len(kv[1])):
        failing = [
            (v.path, (v.divergence or {}).get("position"), key, sent(v.failure)) for v in verdicts
        ]
        areas.setdefault(key.area(), []).extend(failing)
    if tries <= 0:
        for failing in areas.values():
            yield by_area(failing), None
        return
    work: list[CauseJob] = [
        (failing[0][2], failing, options, tries, seconds, deadline) for failing in areas.values()
    ]
    yield from largest_first(_causes_job, work, lambda job: job[1][0][0], jobs)


def sent(failure: Failure | None) -> Failure | None:
    """A FAIL as a worker grouping it takes it (`kept_member`): what the
    replay kept, without what trying slips on it added (the slips tried,
    the lines of the model it ran and what that replay cost)."""
    if failure is None:
        return None
    return replace(failure, expected=None, ran=None, took=None)


def by_area(failing: list[Failing]) -> list[Cause]:
    """FAILs of one area as one cause not shrunk, named by the provisional
    signature of most of them (`failing` lists those first)."""
    return [Cause(failing[0][2], [shown(path) for path, *_ in failing])]
