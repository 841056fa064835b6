"""The committed corpus: scenario files, their expected transcripts (the
model's, committed compressed), and the run that checks an engine and the
model against them."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

from bridge.compare import first_difference
from bridge.engines import Engine, ModelEngine, engine
from bridge.transcript import Record, read, replay, write
from scenarios.format import Scenario, ScenarioError
from scenarios.format import read as read_scenario

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "scenarios" / "corpus"
REGRESSIONS = ROOT / "scenarios" / "regressions"
EXPECTED = ROOT / "scenarios" / "expected"


def files() -> list[Path]:
    """Every scenario of the corpus and every regression, in a fixed order."""
    return sorted(CORPUS.glob("*.jsonl")) + sorted(REGRESSIONS.glob("*.jsonl"))


def expected_path(scenario: Path) -> Path:
    return EXPECTED / scenario.parent.name / (scenario.stem + ".jsonl.gz")


def model_transcript(path: Path, scenario: Scenario) -> list[Record]:
    """The model's transcript; an event the model refuses is a scenario error."""
    model = ModelEngine()
    transcript = replay(scenario, model)
    for record in transcript:
        if "refused" in record:
            line = record["event"] + 2
            raise ScenarioError(f"{path}:{line}: impossible event: {model.refusal}")
    return transcript


def progress_bar(name: str, total: int, quiet: bool = False) -> Callable[[int], None]:
    """Show `name: event k/total` on stderr about once a second (nothing if quiet)."""
    if quiet:
        return lambda _: None
    began = time.monotonic()
    shown = [0.0]

    def show(position: int) -> None:
        now = time.monotonic()
        if now - shown[0] > 1.0 or position == total - 1:
            shown[0] = now
            print(
                f"\r  {name}: event {position + 1}/{total} ({now - began:.0f} s)",
                end="",
                file=sys.stderr,
                flush=True,
            )

    return show


@dataclass
class Verdict:
    path: Path
    problem: str | None
    seconds: float


def first_mismatch(expected: list[Record], found: list[Record]) -> tuple[int, str] | None:
    for k in range(max(len(expected), len(found))):
        a = expected[k] if k < len(expected) else None
        b = found[k] if k < len(found) else None
        field = first_difference(a, b)
        if field is not None:
            return k, field
    return None


def check(path: Path, engine: Engine, with_model: bool = True, quiet: bool = False) -> Verdict:
    """The model against the committed transcript, then the engine against the
    model; without the model, the engine against the committed transcript."""
    began = time.monotonic()
    scenario = read_scenario(path)
    n = len(scenario.events)
    stored = expected_path(path)
    if not stored.exists():
        return Verdict(
            path, f"no expected transcript {stored}; run `make corpus`", time.monotonic() - began
        )
    if not with_model:
        model = read(stored)
        found = replay(scenario, engine, progress_bar(f"{path.name} {engine.name}", n, quiet))
        mismatch = first_mismatch(model, found)
        problem = None
        if mismatch is not None:
            problem = (
                f"{engine.name} diverges from {stored.name} at event {mismatch[0]}, "
                f"field {mismatch[1]!r}"
            )
        return Verdict(path, problem, time.monotonic() - began)
    model = replay(scenario, ModelEngine(), progress_bar(f"{path.name} model", n, quiet))
    refused = next((r for r in model if "refused" in r), None)
    if refused is not None:
        return Verdict(
            path,
            f"{path}:{refused['event'] + 2}: the model refuses this event ({refused['refused']})",
            time.monotonic() - began,
        )
    stored = expected_path(path)
    if not stored.exists():
        return Verdict(
            path, f"no expected transcript {stored}; run `make corpus`", time.monotonic() - began
        )
    mismatch = first_mismatch(read(stored), model)
    if mismatch is not None:
        k, field = mismatch
        return Verdict(
            path,
            f"the MODEL changed against {stored.name}: event {k}, field "
            f"{field!r}; if on purpose, run `make corpus` and commit",
            time.monotonic() - began,
        )
    found = replay(scenario, engine, progress_bar(f"{path.name} {engine.name}", n, quiet))
    mismatch = first_mismatch(model, found)
    if mismatch is not None:
        k, field = mismatch
        return Verdict(
            path,
            f"{engine.name} diverges at event {k} (file line {k + 2}), "
            f"field {field!r}; run `python -m bridge compare {path} --engine "
            f"{engine.name!r}` for the diff and a shrunk scenario",
            time.monotonic() - began,
        )
    return Verdict(path, None, time.monotonic() - began)


def refresh(path: Path) -> str | None:
    """Rewrite one expected transcript from the model; its name if it changed."""
    transcript = model_transcript(path, read_scenario(path))
    stored = expected_path(path)
    if stored.exists() and read(stored) == transcript:
        return None
    write(transcript, stored)
    return str(stored.relative_to(ROOT))


def refresh_expected(jobs: int) -> list[str]:
    """Rewrite every expected transcript from the model; the names that changed."""
    with Pool(jobs) as pool:
        return [name for name in pool.imap(refresh, files()) if name is not None]


def check_all(spec: str, timeout: float, with_model: bool, jobs: int) -> Iterator[Verdict]:
    """`check` every scenario of the corpus, `jobs` at a time, in corpus order."""
    work = [(path, spec, timeout, with_model) for path in files()]
    with Pool(jobs) as pool:
        yield from pool.imap(_check_one, work)


def _check_one(job: tuple[Path, str, float, bool]) -> Verdict:
    path, spec, timeout, with_model = job
    return check(path, engine(spec, timeout), with_model, quiet=True)
