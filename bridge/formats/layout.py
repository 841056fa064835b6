"""Where scenario files and their transcripts lie.

A scenario `D/NAME.jsonl` has its transcripts beside its folder, in
`D/../expected/<D's name>/NAME.jsonl.gz` for SPEC's profile and in
`D/../expected/<D's name>/<profile key>/NAME.jsonl.gz` for another
(bridge/formats/profile.py `key`). The bundled corpus is `scenarios/corpus/`,
with its transcripts in `scenarios/expected/corpus/`; regressions written by
`compare` and `fuzz` keep the same layout under their own folder.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Callable
from pathlib import Path

from bridge.formats import transcript
from bridge.formats.kit import CORPUS, located
from bridge.formats.profile import SPEC, key
from model.constants import Constants
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError, file_lines, parse, read_bytes, stream


def files(targets: list[Path] | None = None) -> list[Path]:
    """The scenario files named: a folder gives its `*.jsonl` in name order;
    nothing named gives the bundled corpus; `corpus/NAME.jsonl`, as reports
    name a bundled scenario, is that scenario (kit.py `located`). ScenarioError
    for a path that does not exist or a folder without scenarios."""
    if not targets:
        return sorted(CORPUS.glob("*.jsonl"))
    out: list[Path] = []
    for given in targets:
        target = located(given)
        if target.is_dir():
            found = sorted(target.glob("*.jsonl"))
            if not found:
                raise ScenarioError(f"{target}: no scenario (*.jsonl) in this folder")
            out += found
        elif target.is_file():
            out.append(target)
        else:
            raise ScenarioError(f"{given}: no such file or folder")
    return out


def named(target: str) -> Path:
    """A scenario named on the command line: a file, the name of a scenario
    of the bundled corpus (`late_1500`, as `--only` takes it), or a bundled
    scenario as reports name it (`corpus/late_1500.jsonl`)."""
    path = located(Path(target))
    if path.exists() or path.suffix or "/" in target:
        return path
    bundled = CORPUS / f"{target}.jsonl"
    if bundled.is_file():
        return bundled
    raise ScenarioError(f"{target}: no such file, nor a scenario of the bundled corpus")


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


def checked_before(path: Path, sha256: Callable[[], str]) -> bool:
    """Whether SPEC's transcript of a scenario says it was made from the
    bytes whose hash `sha256` gives (the scenario was checked when it was)."""
    stored = expected_path(path)
    if not stored.exists():
        return False
    try:
        header = transcript.read_header(stored)
        return header.scenario_sha256 == sha256()
    except (transcript.TranscriptError, OSError):
        return False


def read_checked(path: Path) -> Scenario:
    """A scenario, checked strictly unless it was checked before
    (`checked_before`); its constants checked by the model (SPEC 7) in any case."""
    data = read_bytes(path)
    checked = not checked_before(path, lambda: hashlib.sha256(data).hexdigest())
    return with_constants_checked(parse(file_lines(data), str(path), checked=checked))


def stream_checked(path: Path) -> Scenario:
    """`read_checked`'s scenario with only its header read: its events are
    read, and checked, as a replay asks for them (scenarios/format.py
    `stream`); a file checked before is hashed, not parsed, to know it."""
    checked = not checked_before(path, lambda: transcript.sha256(path))
    return with_constants_checked(stream(path, checked=checked))


def with_constants_checked(scenario: Scenario) -> Scenario:
    """The scenario, when the model takes its constants (SPEC 7); else
    ScenarioError naming the header's line and the constant."""
    try:
        Constants(**scenario.constants)  # type: ignore[arg-type]
    except ValueError as error:
        raise ScenarioError(f"{scenario.source}:1: constants SPEC 7 refuses: {error}") from None
    return scenario


def slug(command: str) -> str:
    """A file-name part naming an engine: readable, and unique to the whole
    command (a hash of it), so two engines never share a file."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", command).strip("-")[:40] or "engine"
    return f"{words}-{hashlib.sha256(command.encode()).hexdigest()[:8]}"


def unique_name(scenario: Path, engine: str, base: str | None = None) -> str:
    """A file name (without suffix) for what one engine did on one scenario
    file: its stem (in safe characters), a hash of its whole path and the engine's slug, so that
    two scenarios of one name in other folders, or two engines, never share
    a regression or a page. `base` (a file name) stands for the stem: a
    scenario shrunk again is named after the one first shrunk, so that
    names never grow."""
    where = hashlib.sha256(str(scenario.resolve()).encode("utf-8", "surrogateescape"))
    named = Path(base).stem if base else scenario.stem
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", named).strip("-") or "scenario"
    return f"{stem}-{where.hexdigest()[:8]}-{slug(engine)}"
