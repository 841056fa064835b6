"""Scenario files and their transcripts, and the run that checks an engine on
many scenarios at once (`python -m bridge corpus`).

Layout: a scenario `D/NAME.jsonl` has its transcripts beside its folder, in
`D/../expected/<D's name>/NAME.jsonl.gz` for SPEC's profile and in
`D/../expected/<D's name>/<profile key>/NAME.jsonl.gz` for another
(bridge/profile.py `key`). The bundled corpus is `scenarios/corpus/`, with
its transcripts in `scenarios/expected/corpus/`; regressions written by
`compare` and `fuzz` keep the same layout under their own folder.
"""

from __future__ import annotations

import fnmatch
import hashlib
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from bridge import transcript
from bridge.compare import MISSING, Divergence, Result, add_states, run
from bridge.engines import Engine, EngineFault, ModelEngine, ProcessEngine, engine
from bridge.kit import SCENARIOS
from bridge.observe import PROTOCOL_1
from bridge.profile import SPEC, agreement, key
from bridge.stream import Exchange, from_model, from_transcript
from model.profile import Profile
from scenarios.format import (
    Scenario,
    ScenarioError,
    file_lines,
    parse,
    read_bytes,
    uses_version_2,
)

CORPUS = SCENARIOS / "corpus"
EXPECTED = SCENARIOS / "expected"
PROFILES = SCENARIOS / "profiles"


def files(targets: list[Path] | None = None) -> list[Path]:
    """The scenario files named: a folder gives its `*.jsonl` in name order;
    nothing named gives the bundled corpus. ScenarioError for a path that
    does not exist or a folder without scenarios."""
    if not targets:
        return sorted(CORPUS.glob("*.jsonl"))
    out: list[Path] = []
    for target in targets:
        if target.is_dir():
            found = sorted(target.glob("*.jsonl"))
            if not found:
                raise ScenarioError(f"{target}: no scenario (*.jsonl) in this folder")
            out += found
        elif target.is_file():
            out.append(target)
        else:
            raise ScenarioError(f"{target}: no such file or folder")
    return out


def choose(paths: list[Path], only: list[str], skip: list[str]) -> list[Path]:
    """The paths whose file name or stem matches an `only` glob (all when
    none is given) and no `skip` glob."""

    def matches(path: Path, globs: list[str]) -> bool:
        return any(fnmatch.fnmatch(path.name, g) or fnmatch.fnmatch(path.stem, g) for g in globs)

    return [p for p in paths if (not only or matches(p, only)) and not matches(p, skip)]


def expected_path(scenario: Path, profile: Profile = SPEC) -> Path:
    """Where a scenario's transcript for `profile` is kept (see above)."""
    folder = scenario.resolve().parent
    base = folder.parent / "expected" / folder.name
    if profile != SPEC:
        base /= key(profile)
    return base / f"{scenario.stem}.jsonl.gz"


def exchanges(path: Path, scenario: Scenario, profile: Profile, live: bool) -> Iterator[Exchange]:
    """The scenario's exchanges from its transcript for `profile`, or, when it
    has none (or `live`), from the model. A transcript made from another
    version of the scenario is refused, never used."""
    stored = expected_path(path, profile)
    if live or not stored.exists():
        return from_model(scenario, profile, strict=profile == SPEC)
    header = transcript.read_header(stored)
    if header.scenario_sha256 != transcript.sha256(path):
        raise ScenarioError(
            f"{stored}: made from another version of {path}; run `make corpus` "
            "(or `python -m bridge expect`) to make it again"
        )
    return from_transcript(scenario, stored)


@dataclass
class Verdict:
    """One scenario checked."""

    path: Path
    status: str
    """`ok`, `FAIL`, `SKIPPED`, `FAULT` (engine fault), `BAD` (bad input) or
    `ERROR` (the bridge itself failed)."""
    seconds: float
    reason: str = ""
    report: str = ""
    divergence: dict[str, Any] | None = None
    answers: int = 0
    agreement: str = ""
    notes: list[str] = field(default_factory=list)


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


class Heartbeat:
    """Progress of one replay on stderr every 10 s: a timer thread reads the
    count of answers the replay reports, so a single long event (a model
    batch over a huge view) still shows the replay alive. Use it in `with`."""

    def __init__(self, name: str, total: int, quiet: bool, every: float = 10.0) -> None:
        self.name, self.total, self.quiet, self.every = name, total, quiet, every
        self.done = 0
        self.began = time.monotonic()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def __call__(self, done: int) -> None:
        self.done = done

    def __enter__(self) -> Heartbeat:
        if not self.quiet:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()

    def _beat(self) -> None:
        while not self.stopped.wait(self.every):
            print(
                f"  ... {self.name}: {self.done}/{self.total} answers "
                f"({time.monotonic() - self.began:.0f} s)",
                file=sys.stderr,
                flush=True,
            )


def profile_of(declared: Profile | None, given: Profile | None, name: str) -> Profile:
    """The profile to check an engine under: what it declared, or `--profile`;
    both must agree when both are there."""
    if declared is not None and given is not None and declared != given:
        raise EngineFault(
            f"engine {name!r} declares a profile other than --profile's: "
            f"{agreement(declared)} / {agreement(given)}"
        )
    return declared or given or SPEC


def make_engine(options: Options) -> Engine:
    return engine(options.engine, options.timeout, options.profile or SPEC)


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


def read_checked(path: Path) -> Scenario:
    """A scenario, checked strictly unless SPEC's transcript of it says it
    was made from these very bytes (it was checked when that was made)."""
    data = read_bytes(path)
    stored = expected_path(path)
    if stored.exists():
        try:
            header = transcript.read_header(stored)
        except transcript.TranscriptError:
            header = None
        if header is not None and header.scenario_sha256 == hashlib.sha256(data).hexdigest():
            return parse(file_lines(data), str(path), checked=False)
    return parse(file_lines(data), str(path))


class Skipped(Exception):
    """The engine cannot take the scenario, and why: never a pass."""


def replay_checked(
    path: Path, scenario: Scenario, subject: Engine, options: Options
) -> tuple[Profile, Result]:
    """Start the engine on the scenario and compare its answers, as they
    arrive, with the scenario's transcript (or the model) under the engine's
    profile; Skipped when the engine cannot take the scenario."""
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
    return profile, result


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
        profile, result = replay_checked(path, scenario, subject, options)
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
    notes = undelivered(scenario, result.sent) if profile.self_calls else []
    if result.divergence is None:
        return verdict("ok", answers=result.answers, agreement=said, notes=notes)
    found = result.divergence
    add_states(found, scenario, ModelEngine(profile), make_engine(options))
    if options.report is not None:
        # bridge.show imports this module for profile_of, so not at the top.
        from bridge.show import write_divergence_report

        options.report.mkdir(parents=True, exist_ok=True)
        names = ("expected", subject.name)
        write_divergence_report(
            options.report / f"{path.stem}.html", scenario, found, names, profile
        )
    return verdict(
        "FAIL",
        reason=found.summary(),
        report=found.report(str(path), ("expected", subject.name)),
        divergence=divergence_json(found),
        answers=result.answers,
        agreement=said,
        notes=notes,
    )


def undelivered(scenario: Scenario, sent: set[int]) -> list[str]:
    """Outcome events never sent: their calls never started (`calls: self`)."""
    held = [
        p for p, e in enumerate(scenario.events) if e["event"] in ("end", "fail") and p not in sent
    ]
    if not held:
        return []
    shown = ", ".join(str(p) for p in held[:10]) + (" ..." if len(held) > 10 else "")
    return [f"{len(held)} outcome events never sent, their calls never started: events {shown}"]


def divergence_json(found: Divergence) -> dict[str, Any]:
    """The first divergence as the machine-readable reports give it."""

    def value(v: Any) -> Any:
        return None if v is MISSING else v

    return {
        "position": found.position,
        "file_line": None if found.position is None else found.position + 2,
        "event": found.event,
        "field": found.field,
        "expected": value(found.expected),
        "found": value(found.found),
        "later": found.later,
    }


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
