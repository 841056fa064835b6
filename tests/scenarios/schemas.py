"""The project's JSON Schemas with a real validator (`jsonschema`), and the
full check of every corpus line and every committed transcript line:

    python -m tests.scenarios.schemas

The tests validate a sample of those lines (tests/scenarios/test_schemas.py
says which); this check validates all of them, about 400,000 lines, in a few
minutes. It prints each invalid line as `file:line: problem` and exits 1 if
there is one.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from collections.abc import Iterable
from functools import cache
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from scenarios.format import FORMAT_1, FORMAT_2, file_lines

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "schema.json"
TRANSCRIPT = ROOT / "scenarios" / "transcript.schema.json"
ANSWER = ROOT / "bridge" / "answer.schema.json"
CORPUS = ROOT / "scenarios" / "corpus"
EXPECTED = ROOT / "scenarios" / "expected"

Numbered = tuple[int, Any]
"""A line's number in its file (from 1) and its JSON value."""


@cache
def schema(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def registry() -> Registry:
    """The three schemas by their `$id`, so that their references resolve."""
    return Registry().with_resources(
        (schema(path)["$id"], DRAFT202012.create_resource(schema(path)))
        for path in (SCENARIO, TRANSCRIPT, ANSWER)
    )


@cache
def validator(path: Path, definition: str | None = None) -> Draft202012Validator:
    """A validator for a schema file, or for one of its `$defs`."""
    target = schema(path)["$id"] + ("" if definition is None else f"#/$defs/{definition}")
    return Draft202012Validator({"$ref": target}, registry=registry())


def raw_lines(path: Path) -> list[bytes]:
    """The lines of a scenario file or of a (gzip-compressed) transcript."""
    data = path.read_bytes()
    return file_lines(gzip.decompress(data) if path.suffix == ".gz" else data)


def numbered(raw: list[bytes], numbers: Iterable[int] | None = None) -> list[Numbered]:
    """The lines of those numbers (from 1; all by default), with their JSON values."""
    chosen = range(1, len(raw) + 1) if numbers is None else numbers
    return [(number, json.loads(raw[number - 1])) for number in chosen]


def invalid(check: Draft202012Validator, lines: Iterable[Numbered], where: Path) -> list[str]:
    """`file:line: problem` for each line `check` refuses, its first problem."""
    return [
        f"{where}:{number}: {problem}"
        for number, value in lines
        if (problem := first_problem(check, value)) is not None
    ]


def first_problem(check: Draft202012Validator, value: Any) -> str | None:
    """`where: what` of the first problem `check` finds in a line's value, or
    None. A value checked before against the same schema is not checked
    again: the transcripts of one scenario under several profiles share
    about half their lines."""
    key = (json.dumps(check.schema, sort_keys=True), json.dumps(value, sort_keys=True))
    if key not in CHECKED:
        error = next(iter(check.iter_errors(value)), None)
        CHECKED[key] = None
        if error is not None:
            where = "/".join(map(str, error.absolute_path)) or "the line"
            CHECKED[key] = f"{where}: {error.message[:200]}"
    return CHECKED[key]


CHECKED: dict[tuple[str, str], str | None] = {}
"""`first_problem`'s answers in this process, by schema and value."""


def invalid_scenario_lines(path: Path, lines: list[Numbered]) -> list[str]:
    """A scenario's invalid lines: the header against the schema, the events
    against the schema's events of the header's version."""
    version = lines[0][1].get("format")
    events = validator(SCENARIO, {FORMAT_1: "event_1", FORMAT_2: "event_2"}.get(version, "event"))
    return invalid(validator(SCENARIO), lines[:1], path) + invalid(events, lines[1:], path)


def _check_file(path: Path) -> tuple[int, list[str]]:
    lines = numbered(raw_lines(path))
    if path.suffix == ".gz":
        return len(lines), invalid(validator(TRANSCRIPT), lines, path)
    return len(lines), invalid_scenario_lines(path, lines)


def main() -> int:
    began = time.perf_counter()
    paths = sorted(CORPUS.glob("*.jsonl")) + sorted(EXPECTED.rglob("*.jsonl.gz"))
    with Pool() as pool:
        results = pool.map(_check_file, paths, chunksize=1)
    problems = [problem for _, found in results for problem in found]
    for problem in problems:
        print(problem)
    checked = sum(count for count, _ in results)
    print(
        f"{checked} lines of {len(paths)} files checked in {time.perf_counter() - began:.0f} s: "
        f"{len(problems)} invalid"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
