"""The committed transcripts and the corpus version (`python -m bridge expect`).

Every transcript records the corpus version, and `scenarios/expected/CORPUS.json`
records, for each version, the digest of all transcripts' records. Making
the transcripts again bumps the version whenever a record changed, so a
corpus is pinned by its version alone; `tests/scenarios/test_corpus_version.py`
fails when transcripts change without it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from bridge.formats import transcript
from bridge.formats.kit import CORPUS, EXPECTED, PROFILES
from bridge.formats.layout import expected_path
from bridge.formats.profile import SPEC, parse, to_json
from bridge.runs.corpus import Pool
from bridge.wire.stream import from_model
from model.profile import Profile
from scenarios.format import is_relative, read

LOCK = EXPECTED / "CORPUS.json"


def profiles() -> list[Profile]:
    """SPEC's profile and every profile kept in `scenarios/profiles/`."""
    out = [SPEC]
    for path in sorted(PROFILES.glob("*.json")):
        out.append(parse(json.loads(path.read_text(encoding="utf-8")), str(path)))
    return out


def records(path: Path, profile: Profile) -> bytes:
    """The model's transcript records of a scenario under `profile`, as bytes:
    a relative event's record says what was sent (its node, the kind of a
    message, or the event a settle stood for)."""
    scenario = read(path)
    out: list[transcript.Record] = []
    for exchange in from_model(scenario, profile, strict=profile == SPEC):
        record = dict(exchange.expected)
        if exchange.position is None:
            record = {"detail": True, **record}
        elif is_relative(scenario.events[exchange.position]):
            line = exchange.line
            key = next(k for k in ("node", "kind", "event") if k in line)
            sent = {key: line[key]}
            record = {"at": exchange.position, **sent, **record}
        else:
            record = {"at": exchange.position, **record}
        out.append(record)
    return transcript.encode(out)


def _job(job: tuple[Path, Profile]) -> tuple[Path, Profile, bytes]:
    path, profile = job
    return path, profile, records(path, profile)


def version() -> int:
    """The corpus version the committed transcripts carry."""
    return int(json.loads(LOCK.read_text(encoding="utf-8"))["version"])


def corpus_version() -> int | None:
    """The corpus version, or None when the committed transcripts carry none
    that can be read."""
    try:
        return version()
    except (OSError, ValueError, KeyError):
        return None


def digest(bodies: dict[str, bytes]) -> str:
    """The digest of a set of transcripts' records, by their names."""
    total = hashlib.sha256()
    for name in sorted(bodies):
        total.update(f"{name}\n{hashlib.sha256(bodies[name]).hexdigest()}\n".encode())
    return total.hexdigest()


def committed() -> dict[str, bytes]:
    """The records of every transcript on disk, by name."""
    return {
        str(path.relative_to(EXPECTED)): transcript.body(path)
        for path in sorted(EXPECTED.rglob("*.jsonl.gz"))
    }


def make(paths: list[Path], jobs: int) -> list[tuple[Path, Profile, bytes]]:
    """The model's transcript records of each scenario under every kept profile."""
    work = [(path, profile) for path in paths for profile in profiles()]
    with Pool(max(1, min(jobs, len(work)))) as pool:
        return pool.map(_job, work)


def write_all(made: list[tuple[Path, Profile, bytes]], version: int) -> list[str]:
    """Write the transcripts; the ones whose bytes changed."""
    changed = []
    for path, profile, body in made:
        stored = expected_path(path, profile)
        header = transcript.Header(path.name, transcript.sha256(path), to_json(profile), version)
        old = stored.read_bytes() if stored.exists() else None
        transcript.write(header, body, stored)
        if stored.read_bytes() != old:
            changed.append(str(stored))
    return changed


def refresh(paths: list[Path], jobs: int) -> tuple[int, list[str]]:
    """Make every transcript of the bundled corpus's `paths` again, under every
    kept profile; the corpus version (bumped when a record changed) and the
    transcripts that changed."""
    made = make(paths, jobs)
    lock = json.loads(LOCK.read_text(encoding="utf-8")) if LOCK.exists() else {"version": 0}
    history: dict[str, str] = lock.get("history", {})
    bodies = committed()
    for path, profile, body in made:
        bodies[str(expected_path(path, profile).relative_to(EXPECTED))] = body
    now = digest(bodies)
    current = int(lock["version"])
    if history.get(str(current)) != now:
        current += 1
        history[str(current)] = now
    changed = write_all(made, current)
    LOCK.write_text(
        json.dumps({"version": current, "history": history}, indent=2) + "\n", encoding="utf-8"
    )
    return current, changed


def bundled(paths: list[Path]) -> bool:
    """Whether every path is a scenario of the bundled corpus."""
    return all(path.resolve().parent == CORPUS for path in paths)
