"""Transcripts: one JSON line per event of what an engine showed after it.

Each line holds `event` (the event's 0-based position) and the brief
observation; at every batch (an event whose `merges` is not empty) and at
the last event also `render` and `contexts`; and `refused` with the rule's
name when the engine refused the event.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bridge.engines import Engine
from scenarios.format import Scenario

Record = dict[str, Any]


def records(scenario: Scenario, engine: Engine) -> Iterator[Record]:
    """Replay the scenario through the engine, yielding one record per event."""
    engine.start(scenario)
    try:
        last = len(scenario.events) - 1
        for position, event in enumerate(scenario.events):
            refused = engine.apply(event, position)
            record: Record = {"event": position, **engine.observe(detail=False)}
            if record["merges"] or position == last:
                record = {"event": position, **engine.observe(detail=True)}
            if refused is not None:
                record["refused"] = refused
            yield record
    finally:
        engine.close()


def replay(
    scenario: Scenario, engine: Engine, progress: Callable[[int], None] = lambda _: None
) -> list[Record]:
    """The whole transcript of the scenario through the engine."""
    out = []
    for record in records(scenario, engine):
        out.append(record)
        progress(record["event"])
    return out


def line(record: Record) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write(transcript: list[Record], path: Path) -> None:
    """Write a transcript; gzip-compressed (reproducibly) when `path` ends in .gz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(line(r) + "\n" for r in transcript).encode("utf-8")
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as packed:
            packed.write(text)
        text = buffer.getvalue()
    path.write_bytes(text)


def read(path: Path) -> list[Record]:
    """Read a transcript written by `write`."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return [json.loads(raw) for raw in data.decode("utf-8").splitlines()]
