"""The run that checks an engine on many scenarios at once (`python -m bridge
corpus`): each scenario replayed and compared as its answers arrive, one
engine process kept from one scenario to the next when it takes sessions,
and the scenarios shared among worker processes."""

from __future__ import annotations

import shlex
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from bridge.checking.compare import Result, add_states, run
from bridge.checking.delivery import delivery, notes
from bridge.checking.verdict import Skipped, Verdict, divergence_json
from bridge.formats import transcript
from bridge.formats.layout import read_checked, unique_name
from bridge.formats.profile import SPEC, agreement, to_json
from bridge.runs.progress import Heartbeat
from bridge.wire import factory
from bridge.wire.engine import Engine, EngineFault, Ready, profile_of
from bridge.wire.inprocess import ModelEngine
from bridge.wire.observe import PROTOCOL_1
from bridge.wire.process import ProcessEngine
from bridge.wire.stream import exchanges
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError, uses_version_2

Page = Callable[..., Any]
"""What writes one failing scenario's HTML report (`corpus --report`), given
also the command that reproduces it and the engine's stderr tail:
bridge/outputs/page.py `write_divergence_report`."""

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
    program: str = "python -m bridge"
    """The runner as the user started it, for the command a report repeats."""


@dataclass(frozen=True)
class Run:
    """What a corpus run checked, and with what."""

    engine: str
    agreement: str
    corpus_version: int | None
    seconds: float
    verdicts: list[Verdict]
    known: set[str]
    """Scenarios listed as known failures (by file name)."""


def make_engine(options: Options) -> Engine:
    return factory.engine(options.engine, options.timeout, options.profile or SPEC)


KEPT: dict[Options, Engine] = {}
"""An engine process of each worker that declared `sessions`, kept from one
scenario to the next (bridge/PROTOCOL.md), so a corpus starts it once."""


def kept_engine(options: Options) -> Engine:
    return KEPT.pop(options, None) or make_engine(options)


def keep(subject: Engine, options: Options) -> bool:
    """Keep an engine that replayed a scenario to its end, if it takes another."""
    if isinstance(subject, ProcessEngine) and subject.ready.sessions:
        KEPT[options] = subject
        return True
    return False


def replay_checked(
    path: Path, scenario: Scenario, subject: Engine, options: Options
) -> tuple[Profile, Result, Ready]:
    """Start the engine on the scenario and compare its answers, as they
    arrive, with the scenario's transcript (or the model) under the engine's
    profile; Skipped when the engine cannot take the scenario. Also what the
    engine said to the header."""
    ready = subject.start(scenario)
    if ready.unsupported:
        said = "; ".join(f"{k}: {v}" for k, v in ready.unsupported.items())
        raise Skipped(f"the engine cannot take it ({said})")
    if ready.protocol == 1 and uses_version_2(scenario.events):
        raise Skipped("the engine speaks protocol 1; this needs protocol 2")
    profile = profile_of(ready.profile, options.profile, subject.name)
    fields = PROTOCOL_1 if ready.protocol == 1 else None
    with Heartbeat(path.name, len(scenario.events) + 1, options.quiet) as beat:
        result = run(
            exchanges(path, scenario, profile, options.live),
            subject,
            ready,
            fields,
            options.keep_going,
            beat,
        )
    if result.unsupported is not None:
        raise Skipped(f"the engine does not support {result.unsupported}")
    return profile, result, ready


def stderr_tail(subject: Engine) -> str:
    """The end of what an engine process wrote on stderr ("" for an engine in this process)."""
    if not isinstance(subject, ProcessEngine):
        return ""
    return bytes(subject.stderr).decode("utf-8", "replace")[-STDERR_SHOWN:]


def reproduction(path: Path, options: Options) -> str:
    """The command that checks this one scenario again and shrinks its divergence."""
    engine = shlex.quote(options.engine)
    return f"{options.program} compare {shlex.quote(str(path))} --engine {engine}"


def check(path: Path, options: Options) -> Verdict:
    """Check one scenario: the engine's answers against its transcript (or the
    model), stopping at the first divergence unless `keep_going`."""
    began = time.monotonic()

    def verdict(status: str, **more: Any) -> Verdict:
        return Verdict(path, status, time.monotonic() - began, **more)

    try:
        scenario = read_checked(path)
    except ScenarioError as error:
        return verdict("BAD", reason=str(error))
    subject = kept_engine(options)
    finished = False
    try:
        profile, result, ready = replay_checked(path, scenario, subject, options)
    except Skipped as skipped:
        return verdict("SKIPPED", reason=str(skipped))
    except ScenarioError as error:
        return verdict("BAD", reason=str(error))
    except (EngineFault, transcript.TranscriptError) as error:
        status = "FAULT" if isinstance(error, EngineFault) else "BAD"
        return verdict(status, reason=str(error))
    else:
        finished = result.divergence is None
    finally:
        if not (finished and keep(subject, options)):
            subject.close()
    said = agreement(profile)
    reached = None
    if result.finished:
        reached = delivery(scenario, profile, result.sent, result.refused)
    told = notes(reached) if reached is not None else []
    about: dict[str, Any] = {
        "engine": ready.engine,
        "profile": to_json(profile),
        "family": str(scenario.notes.get("family", "")),
        "delivery": reached,
    }
    if result.divergence is None:
        return verdict("ok", answers=result.answers, agreement=said, notes=told, **about)
    found = result.divergence
    tail = stderr_tail(subject)
    add_states(found, scenario, ModelEngine(profile), make_engine(options))
    page = None
    if options.report is not None and options.page is not None:
        page = f"{unique_name(path, options.engine)}.html"
        names = ("expected", subject.name)
        command = reproduction(path, options)
        options.page(
            options.report / page, scenario, found, names, profile, command=command, stderr=tail
        )
    return verdict(
        "FAIL",
        reason=found.summary(),
        report=found.report(str(path), ("expected", subject.name)),
        divergence=divergence_json(found),
        answers=result.answers,
        agreement=said,
        notes=told,
        page=page,
        stderr=tail,
        **about,
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


def check_all(paths: list[Path], options: Options, jobs: int) -> Iterator[Verdict]:
    """`check` every scenario: one at a time in the order given, or `jobs` at
    a time, the largest files first (so that no long scenario is left running
    alone at the end), yielding each verdict as it comes."""
    work = [(path, options) for path in paths]
    if jobs <= 1 or len(work) <= 1:
        yield from map(_check_job, work)
        return
    work.sort(key=lambda job: -job[0].stat().st_size)
    with Pool(min(jobs, len(work))) as pool:
        yield from pool.imap_unordered(_check_job, work)
