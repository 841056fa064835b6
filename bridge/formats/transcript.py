"""Transcripts: what a conforming engine answers to a scenario, line by line
(`optchat-transcript/2`, scenarios/README.md "Transcripts").

The first line is a header naming the scenario (and the SHA-256 of its
file, so a transcript never outlives its scenario), the engine profile and
the corpus version. Then one record per line the bridge sends, in the order
it sends them: for an event, `at` (its position in the scenario) and the
answer; last, `{"detail": true, ...}` and the answer to the final detail
request. Answers are lean (bridge/PROTOCOL.md): a transcript is read as a
stream and never held whole.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios.format import loads

FORMAT = "optchat-transcript/2"

Record = dict[str, Any]


class TranscriptError(ValueError):
    """A transcript that cannot be read: `file:line: problem`."""


@dataclass(frozen=True)
class Header:
    scenario: str
    scenario_sha256: str
    profile: dict[str, Any]
    corpus: int

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "corpus": self.corpus,
            "scenario": self.scenario,
            "scenario_sha256": self.scenario_sha256,
            "profile": self.profile,
        }


def sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks (a scenario may be 50 MB)."""
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def line(record: Record) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def encode(records: Iterable[Record]) -> bytes:
    """Records as a transcript's body: one JSON line each."""
    return "".join(line(r) + "\n" for r in records).encode("utf-8")


def packed(header: Header, body: bytes, path: Path) -> bytes:
    """A transcript's bytes (its header, then `body`) as file `path` holds
    them: gzip-compressed (reproducibly) when it ends in .gz."""
    data = (line(header.to_json()) + "\n").encode("utf-8") + body
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as out:
            out.write(data)
        data = buffer.getvalue()
    return data


def write(header: Header, body: bytes, path: Path) -> None:
    """Write a transcript (its header, then `body`), see `packed`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(packed(header, body, path))


def _open(path: Path) -> io.BufferedIOBase:
    """A transcript opened to be read, gunzipped when it ends in .gz: through
    a buffer, whose lines are cut in C (GzipFile's own `readline` is Python,
    run once a record)."""
    if path.suffix == ".gz":
        return io.BufferedReader(gzip.open(path, "rb"))  # type: ignore[arg-type]
    return path.open("rb")


def read_header(path: Path) -> Header:
    """A transcript's header alone."""
    with _open(path) as stream:
        first = stream.readline()
    return _header(first, path)


def _header(raw: bytes, path: Path) -> Header:
    try:
        value = loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise TranscriptError(f"{path}:1: not a transcript header: {error}") from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise TranscriptError(f"{path}:1: format must be {FORMAT!r}")
    try:
        return Header(
            value["scenario"], value["scenario_sha256"], value["profile"], value["corpus"]
        )
    except KeyError as missing:
        raise TranscriptError(f"{path}:1: the header lacks {missing}") from None


def raw_records(path: Path) -> Iterator[bytes]:
    """A transcript's records after its header, as the lines they are."""
    try:
        with _open(path) as stream:
            _header(stream.readline(), path)
            yield from stream
    except (OSError, EOFError) as error:
        raise TranscriptError(f"{path}: cannot be read: {error}") from None


def cut(raw: bytes) -> tuple[bytes, dict[str, Any] | None, bytes]:
    """A record's first field (`{"at":k` or `{"detail":true`), what a
    relative event's record says was sent after it (`"node":[l,i]`,
    `"event":"timeout"` or `"kind":"user"`; None for any other record), and
    the answer's bytes: the rest, as one JSON object."""
    head, _, rest = raw.rstrip(b"\n").partition(b",")
    sent: dict[str, Any] | None = None
    if rest.startswith(b'"node":['):
        named, _, rest = rest.removeprefix(b'"node":').partition(b"],")
        sent = {"node": loads((named + b"]").decode())}
    elif rest.startswith((b'"event":"', b'"kind":"')):
        key, _, rest = rest.removeprefix(b'"').partition(b'":"')
        named, _, rest = rest.partition(b'",')
        sent = {key.decode(): named.decode()}
    return head, sent, b"{" + rest


def records(path: Path) -> Iterator[Record]:
    """A transcript's records, after its header, read as they are needed."""
    try:
        with _open(path) as stream:
            _header(stream.readline(), path)
            for number, raw in enumerate(stream, start=2):
                try:
                    yield json.loads(raw)
                except ValueError as error:
                    raise TranscriptError(f"{path}:{number}: not JSON: {error}") from None
    except (OSError, EOFError) as error:
        raise TranscriptError(f"{path}: cannot be read: {error}") from None


def body(path: Path) -> bytes:
    """A transcript's records as they are stored, its header left out."""
    with _open(path) as stream:
        stream.readline()
        return stream.read()
