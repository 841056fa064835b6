"""Where the kit's documents and data are (`optchat-spec files`), in a clone
and in an installed copy alike: each is found beside the package that carries
it, never relative to the current directory. The bundled corpus, its
transcripts and the kept engine profiles are folders of `scenarios/`; a
report names a scenario of the bundled corpus `corpus/NAME.jsonl`, wherever
the runner was installed (a clone, a wheel, the zipapp's cache)."""

from __future__ import annotations

from pathlib import Path

import scenarios

BRIDGE = Path(__file__).resolve().parents[1]
SCENARIOS = Path(scenarios.__file__).resolve().parent
CORPUS = SCENARIOS / "corpus"
EXPECTED = SCENARIOS / "expected"
PROFILES = SCENARIOS / "profiles"
BUNDLED = "corpus"
"""The first part of a bundled scenario's name in reports (`corpus/late_1500.jsonl`)."""


def shown(path: Path) -> str:
    """A scenario as reports and hints name it: `corpus/NAME.jsonl` for a
    file of the bundled corpus, any other as the run was given it."""
    try:
        inside = path.resolve().relative_to(CORPUS)
    except (ValueError, OSError):
        return str(path)
    return f"{BUNDLED}/{inside.as_posix()}"


def located(path: Path) -> Path:
    """The file or folder a scenario argument names: the path itself when it
    exists, else the bundled corpus's file a report named (`corpus/NAME.jsonl`,
    `shown`), or its folder (`corpus`); else the path, which does not exist."""
    if path.exists() or path.is_absolute() or path.parts[:1] != (BUNDLED,):
        return path
    bundled = CORPUS.joinpath(*path.parts[1:])
    return bundled if bundled.exists() else path


def spec() -> Path:
    """SPEC.md: `bridge/SPEC.md` in a wheel (release/files.py ships it there), the
    project root's in a clone."""
    packaged = BRIDGE / "SPEC.md"
    return packaged if packaged.is_file() else BRIDGE.parent / "SPEC.md"


def documents() -> dict[str, Path]:
    """Each document and data folder of the kit, by what it is."""
    return {
        "spec": spec(),
        "protocol": BRIDGE / "PROTOCOL.md",
        "scenario format": SCENARIOS / "README.md",
        "scenario schema": SCENARIOS / "schema.json",
        "transcript schema": SCENARIOS / "transcript.schema.json",
        "answer schema": BRIDGE / "answer.schema.json",
        "report schema": BRIDGE / "report.schema.json",
        "diagnosis schema": BRIDGE / "diagnosis.schema.json",
        "matrix schema": BRIDGE / "matrix.schema.json",
        "corpus": SCENARIOS / "corpus",
        "expected transcripts": SCENARIOS / "expected",
        "corpus version": SCENARIOS / "expected" / "CORPUS.json",
        "engine profiles": SCENARIOS / "profiles",
    }
