"""A scenario is read as it is replayed (issue 24): `corpus` reads its header,
then each event as the replay sends it, so a divergence at event 10 of a
huge file costs the lines up to there (and the window sent ahead), and a
bad line is found, with its file, line and problem, when the replay comes
to it. Counted here by what is read from the file, never by time."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import IO

import pytest

import bridge.cli as cli
import scenarios.format as scenario_format
from bridge.checking.slips import PAST
from bridge.formats import transcript
from bridge.formats.profile import SPEC
from bridge.runs.corpus import Options, check
from bridge.wire.process import WINDOW
from bridge.wire.stream import from_model
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL

ROOT = Path(__file__).resolve().parents[2]
WRONG_AT = 10
TAIL = 50_000

ENGINE = f"""\
import json, sys
from impl.profile import Profile
from impl.protocol import Session, ready

header = json.loads(sys.stdin.readline())
session = Session(header, Profile())
print(json.dumps(ready(Profile())), flush=True)
for raw in sys.stdin:
    request = json.loads(raw)
    answer = session.answer(request)
    if request.get("at") == {WRONG_AT}:
        answer["size"] += 1
    print(json.dumps(answer), flush=True)
"""
"""An engine that agrees with SPEC but for the size it answers at event WRONG_AT."""


class Counted:
    """A scenario file as the bridge reads it, counting the lines it takes
    one by one and the bytes of everything it reads."""

    def __init__(self, file: IO[bytes], tally: dict[str, int]) -> None:
        self.file, self.tally = file, tally

    def readline(self) -> bytes:
        line = self.file.readline()
        self.tally["lines"] += 1
        self.tally["bytes"] += len(line)
        return line

    def read(self, size: int = -1) -> bytes:
        block = self.file.read(size)
        self.tally["bytes"] += len(block)
        return block

    def close(self) -> None:
        self.tally["closed"] += 1
        self.file.close()

    def __enter__(self) -> Counted:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """What the bridge reads of the scenario files it opens to stream."""
    counts = {"lines": 0, "bytes": 0, "closed": 0, "opened": 0}
    real = scenario_format.open_file

    def counted(path: Path) -> Counted:
        counts["opened"] += 1
        return Counted(real(path), counts)

    monkeypatch.setattr(scenario_format, "open_file", counted)
    return counts


def messages(count: int) -> list[str]:
    return [
        json.dumps({"event": "message", "kind": "user", "size": 3 + k % 5}) for k in range(count)
    ]


def write(folder: Path, events: list[str]) -> Path:
    header = {"format": scenario_format.FORMAT_1, "constants": constants_dict(SMALL)}
    path = folder / "big.jsonl"
    path.write_text("\n".join([json.dumps(header), *events]) + "\n", encoding="utf-8")
    return path


def engine(folder: Path) -> str:
    script = folder / "wrong_at_10.py"
    script.write_text(ENGINE, encoding="utf-8")
    return f"{sys.executable} {script}"


@pytest.mark.parametrize("bad_tail", [False, True])
def test_a_divergence_at_event_10_reads_nothing_of_the_tail(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tally: dict[str, int],
    bad_tail: bool,
) -> None:
    """Of 50,000 events, the replay parses those before the divergence and
    the window sent ahead of the answers, or the answers it reads past the
    divergence for judging rule slips (slips.py PAST), if more; the rest is
    only counted, in blocks (so a malformed line down there is not looked
    at: the verdict is the divergence, with the scenario's whole count of
    events)."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    events = messages(TAIL)
    if bad_tail:
        events[TAIL - 100] = '{"event": "message", "kind": "user", "size": 3'
    path = write(tmp_path, events)
    verdict = check(path, Options(engine=engine(tmp_path), quiet=True))
    assert verdict.status == "FAIL", verdict.reason
    assert verdict.divergence is not None and verdict.divergence["position"] == WRONG_AT
    assert 1 + WRONG_AT < tally["lines"] <= 1 + WRONG_AT + max(WINDOW, PAST) + 2, tally
    assert tally["opened"] == 1 and tally["closed"] >= 1
    assert verdict.coverage is not None and verdict.coverage.events == TAIL
    assert verdict.coverage.compared <= WRONG_AT + 1


def test_a_bad_line_is_found_when_the_replay_comes_to_it(
    tmp_path: Path, tally: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    """A passing engine replays up to the bad line, which gets its one line
    (file, line, problem) and exit code 2; nothing after it is read."""
    events = messages(400)
    events[300] = '{"event": "message", "kind": "user", "size": 3'
    path = write(tmp_path, events)
    assert cli.main(["corpus", str(path), "--engine", "impl", "--jobs", "1"]) == 2
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if f"{path}:302:" in line]
    assert len(said) == 1 and "not JSON" in said[0], out
    assert "Traceback" not in out
    assert tally["lines"] == 1 + 301, tally


def test_skipped_and_counted_without_parsing(tmp_path: Path, tally: dict[str, int]) -> None:
    """A scenario made to test only a capability the engine lacks is SKIPPED
    from its header, its events counted from the file's lines."""
    events = messages(1_000)
    header = {
        "format": scenario_format.FORMAT_1,
        "constants": constants_dict(SMALL),
        "notes": {"family": "zoom"},
    }
    path = tmp_path / "zoom_only.jsonl"
    path.write_text("\n".join([json.dumps(header), *events]) + "\n", encoding="utf-8")
    verdict = check(path, Options(engine="impl", quiet=True, capabilities=frozenset()))
    assert verdict.status == "SKIPPED", verdict.reason
    assert verdict.coverage is not None and verdict.coverage.skipped == 1_000
    assert tally["lines"] == 1, tally


def test_a_gzipped_transcript_reads_back_record_for_record_and_a_cut_one_is_refused(
    tmp_path: Path,
) -> None:
    """Records over many blocks of the compressed file, U+2028 in them, read
    back as written; a file cut short is one TranscriptError."""
    noise = random.Random(1)
    records = [
        {"at": k, "x": "\u00e9\u2028\r" * (k % 5) + noise.randbytes(40).hex()} for k in range(5_000)
    ]
    path = tmp_path / "t.jsonl.gz"
    transcript.write(
        transcript.Header("t.jsonl", "0" * 64, {}, 3), transcript.encode(records), path
    )
    assert len(path.read_bytes()) > 2 * (1 << 16)
    assert [json.loads(raw) for raw in transcript.raw_records(path)] == records
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(transcript.TranscriptError, match=f"{cut}: cannot be read"):
        list(transcript.raw_records(cut))


def test_a_line_with_a_carriage_return_between_tokens_is_sent_without_it(
    tmp_path: Path,
) -> None:
    """JSON allows `\\r` between tokens, but an engine reading its input with
    universal newlines would split the line there: such a line is encoded
    again, not sent as the file spells it; any other line goes out as written."""
    spelled = ['{"event": "message", "kind": "user",\r "text": "a"}', *messages(2)]
    scenario = scenario_format.read(write(tmp_path, spelled))
    sent = [
        (exchange.wire, exchange.line)
        for exchange in from_model(scenario, SPEC, strict=True)
        if exchange.position is not None
    ]
    assert sent[0][0] is None
    assert sent[0][1] == {
        "event": "message",
        "kind": "user",
        "text": "a",
        "at": 0,
    }
    assert [wire for wire, _ in sent[1:]] == [
        f'{line[:-1]},"at":{at}}}'.encode() for at, line in enumerate(spelled[1:], 1)
    ]
