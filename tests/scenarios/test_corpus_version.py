"""The corpus version guard: every transcript carries the version of
scenarios/expected/CORPUS.json, whose history holds the digest of all
transcripts' records at that version, so no transcript's records change
without a version bump; no transcript outlives its scenario; CHANGELOG.md
names the version."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from bridge.formats import transcript
from bridge.runs import expect

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
EXPECTED = SCENARIOS / "expected"


def lock(expected: Path) -> tuple[int, dict[str, str]]:
    """CORPUS.json's version and history."""
    held = json.loads((expected / "CORPUS.json").read_text(encoding="utf-8"))
    return int(held["version"]), dict(held["history"])


def write_lock(expected: Path, version: int, history: dict[str, str]) -> None:
    text = json.dumps({"version": version, "history": history})
    (expected / "CORPUS.json").write_text(text, encoding="utf-8")


def problems(expected: Path, records: dict[str, bytes] | None = None) -> list[str]:
    """What is wrong with the transcripts in `expected` (laid out as
    scenarios/expected, beside the scenarios' folders) and its CORPUS.json;
    their records by name are `records` where given, else read here."""
    version, history = lock(expected)
    out: list[str] = []
    read: dict[str, bytes] = {}
    hashed: dict[Path, str] = {}  # a scenario's, once for its transcripts under every profile
    for path in sorted(expected.rglob("*.jsonl.gz")):
        name = str(path.relative_to(expected))
        header = transcript.read_header(path)
        if header.corpus != version:
            out.append(f"{name}: corpus version {header.corpus}, not {version}")
        scenario = expected.parent / Path(name).parts[0] / header.scenario
        if scenario.is_file() and scenario not in hashed:
            hashed[scenario] = transcript.sha256(scenario)
        if header.scenario != path.name.removesuffix(".gz"):
            out.append(f"{name}: the transcript of {header.scenario}")
        elif hashed.get(scenario) != header.scenario_sha256:
            out.append(f"{name}: stale, {scenario.name} is not the scenario it was made from")
        if records is None:
            read[name] = transcript.body(path)
    if expect.digest(read if records is None else records) != history.get(str(version)):
        out.append(f"records changed, and the corpus version is still {version}")
    if len(set(history.values())) != len(history):
        out.append("the history repeats a digest")
    return out


VERSION = lock(EXPECTED)[0]
UNBUMPED = f"records changed, and the corpus version is still {VERSION}"


def test_the_committed_transcripts_have_the_version_its_digest_and_their_scenarios() -> None:
    """The records as `bridge expect` reads them (`committed`), read once
    here for both: their digest is the version's."""
    assert expect.version() == VERSION
    assert problems(EXPECTED, expect.committed()) == []


def test_the_readme_s_recipe_for_the_digest_gives_the_version_s() -> None:
    """Restated from scenarios/README.md ("The corpus version"), with hashlib alone."""
    total = hashlib.sha256()
    for path in sorted(EXPECTED.rglob("*.jsonl.gz"), key=lambda p: str(p.relative_to(EXPECTED))):
        data = gzip.decompress(path.read_bytes())
        records = data[data.index(b"\n") + 1 :]
        total.update(
            f"{path.relative_to(EXPECTED)}\n{hashlib.sha256(records).hexdigest()}\n".encode()
        )
    assert total.hexdigest() == lock(EXPECTED)[1][str(VERSION)]


def test_the_changelog_names_the_corpus_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"corpus version {VERSION}\b", changelog)


KEPT = ("empty_chat", "zoom_2")
"""The scenarios of the copies the tests below plant a fault in."""


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of KEPT's scenarios and their transcripts under every profile,
    whose CORPUS.json holds their digest at the version: a copy that passes;
    its `expected` folder. Each fault planted below is in one file or in the
    digest over the transcripts there, found alike among KEPT's ten as among
    all the corpus's (the committed ones are checked above), for a tenth of
    the CPU."""
    expected = tmp_path / "expected"
    bodies = {}
    for name in KEPT:
        (tmp_path / "corpus").mkdir(exist_ok=True)
        shutil.copy(SCENARIOS / "corpus" / f"{name}.jsonl", tmp_path / "corpus")
        for path in EXPECTED.rglob(f"{name}.jsonl.gz"):
            kept = expected / path.relative_to(EXPECTED)
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, kept)
            bodies[str(path.relative_to(EXPECTED))] = transcript.body(path)
    history = lock(EXPECTED)[1]
    write_lock(expected, VERSION, {**history, str(VERSION): expect.digest(bodies)})
    assert problems(expected) == []
    return expected


def transcripts_of(expected: Path, name: str) -> list[str]:
    """A scenario's transcripts, one per profile, by their names in `expected`."""
    found = sorted(str(p.relative_to(expected)) for p in expected.rglob(f"{name}.jsonl.gz"))
    kept = len(list((SCENARIOS / "profiles").glob("*.json")))
    assert len(found) == 1 + kept, "SPEC's profile and each one kept in scenarios/profiles"
    return found


def rewrite(path: Path, body: bytes | None = None, corpus: int | None = None) -> None:
    """Write a transcript again with another body or corpus version."""
    header = transcript.read_header(path)
    if corpus is not None:
        header = transcript.Header(header.scenario, header.scenario_sha256, header.profile, corpus)
    transcript.write(header, transcript.body(path) if body is None else body, path)


def test_a_record_changed_without_a_version_bump_is_caught(copy: Path) -> None:
    path = copy / "corpus" / "empty_chat.jsonl.gz"
    changed = transcript.body(path).replace(b"<chat>\\n</chat>", b"<chat>\\n\\n</chat>", 1)
    assert changed != transcript.body(path)
    rewrite(path, changed)
    assert problems(copy) == [UNBUMPED]


def keep_only(expected: Path, name: str) -> list[str]:
    """Leave out every transcript but a scenario's; the names of those kept."""
    kept = transcripts_of(expected, name)
    for path in expected.rglob("*.jsonl.gz"):
        if str(path.relative_to(expected)) not in kept:
            path.unlink()
    return kept


def test_a_change_with_its_version_bump_passes(copy: Path) -> None:
    """Leaving transcripts out is a change too; bumped as `bridge expect`
    bumps (the headers, the version and its digest), the copy passes."""
    kept = keep_only(copy, "empty_chat")
    assert problems(copy) == [UNBUMPED]
    for name in kept:
        rewrite(copy / name, corpus=VERSION + 1)
    digest = expect.digest({name: transcript.body(copy / name) for name in kept})
    write_lock(copy, VERSION + 1, {**lock(copy)[1], str(VERSION + 1): digest})
    assert problems(copy) == []


def test_a_bump_without_its_digest_is_caught(copy: Path) -> None:
    for name in keep_only(copy, "empty_chat"):
        rewrite(copy / name, corpus=VERSION + 1)
    write_lock(copy, VERSION + 1, lock(copy)[1])
    assert problems(copy) == [f"records changed, and the corpus version is still {VERSION + 1}"]


def test_a_transcript_of_another_version_is_caught(copy: Path) -> None:
    rewrite(copy / "corpus" / "zoom_2.jsonl.gz", corpus=VERSION - 1)
    assert problems(copy) == [
        f"corpus/zoom_2.jsonl.gz: corpus version {VERSION - 1}, not {VERSION}"
    ]


def test_a_transcript_whose_scenario_changed_is_caught(copy: Path) -> None:
    scenario = copy.parent / "corpus" / "zoom_2.jsonl"
    scenario.write_bytes(scenario.read_bytes() + b'{"event": "wait"}\n')
    assert problems(copy) == [
        f"{name}: stale, zoom_2.jsonl is not the scenario it was made from"
        for name in transcripts_of(copy, "zoom_2")
    ]


def test_a_history_that_repeats_a_digest_is_caught(copy: Path) -> None:
    history = lock(copy)[1]
    write_lock(copy, VERSION, {**history, str(VERSION + 1): history[str(VERSION)]})
    assert problems(copy) == ["the history repeats a digest"]
