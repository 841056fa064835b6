"""The scenario format: JSON lines, a header then one event per line.

Documented for other engines in `scenarios/README.md`. This module reads and
writes it with plain values (ints and strings), so that it depends on no
engine: the model's bit lists and the engine's integers are both made from
these values by the bridge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "optchat-scenario/1"

CONSTANTS = {
    "node": int,
    "ceiling": int,
    "floor": int,
    "cceiling": int,
    "cfloor": int,
    "jobs": int,
    "ahead": int,
    "tries": int,
    "failures": int,
    "retry": (int, float),
    "settle_timeout": (int, float),
    "tool_cap": int,
}

KINDS = ("user", "unii", "tool", "echo", "work", "note")

# Each event's fields beside "event", with their types; "message" takes
# either "text" or "size", and "end" either "line" or "size".
EVENTS: dict[str, dict[str, Any]] = {
    "message": {"kind": str, "text": str, "size": int},
    "start": {"node": list},
    "end": {"node": list, "line": str, "size": int},
    "fail": {"node": list},
    "wait": {},
    "settle": {},
    "timeout": {},
    "retry": {},
}

FILLER = "chat é€ 😀 line\r\nnext\rmore\nend. "
"""The text a sized message repeats (SPEC 1 sizes are bytes): newlines of all
three kinds and 2-, 3- and 4-byte characters."""


class ScenarioError(ValueError):
    """A scenario that breaks the format; the message is `file:line: problem`."""


@dataclass(frozen=True)
class Scenario:
    """A header (`constants`, `generator`, `seed`) and its events, as plain dicts."""

    constants: dict[str, int | float]
    events: list[dict[str, Any]]
    generator: str = "hand"
    seed: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    source: str = "<scenario>"
    """Where the scenario was read from, for `file:line: problem` messages."""


def sized_text(size: int, position: int) -> str:
    """The text of a message given by size: FILLER repeated from character
    `position % len(FILLER)`, cut to at most `size` bytes at a character
    boundary, then padded with `.` to exactly `size` bytes."""
    start = position % len(FILLER)
    repeats = size // len(FILLER) + 2
    cut = (FILLER[start:] + FILLER * repeats).encode("utf-8")[:size]
    text = cut.decode("utf-8", errors="ignore")
    return text + "." * (size - len(text.encode("utf-8")))


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _fail(path: str, line: int, problem: str) -> ScenarioError:
    return ScenarioError(f"{path}:{line}: {problem}")


def _check_node(value: Any, path: str, line: int) -> None:
    if not (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise _fail(path, line, f"node must be [level, index] of two naturals, not {value!r}")


def _is_type(value: Any, kind: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, kind)


def check_header(header: Any, path: str) -> None:
    """Refuse a header with a missing or unknown field or a bad type."""
    if not isinstance(header, dict):
        raise _fail(path, 1, "the first line must be the header object")
    if header.get("format") != FORMAT:
        raise _fail(path, 1, f"format must be {FORMAT!r}, not {header.get('format')!r}")
    unknown = set(header) - {"format", "generator", "seed", "constants", "notes"}
    if unknown:
        raise _fail(path, 1, f"unknown header field {sorted(unknown)[0]!r}")
    constants = header.get("constants")
    if not isinstance(constants, dict):
        raise _fail(path, 1, "the header needs a constants object")
    for name, kind in CONSTANTS.items():
        if name not in constants:
            raise _fail(path, 1, f"constant {name!r} is missing")
        if not _is_type(constants[name], kind) or constants[name] < 0:
            raise _fail(path, 1, f"constant {name!r} must be a natural number")
    extra = set(constants) - set(CONSTANTS)
    if extra:
        raise _fail(path, 1, f"unknown constant {sorted(extra)[0]!r}")


def check_event(event: Any, path: str, line: int) -> None:
    """Refuse an event with an unknown name or field, or a bad type."""
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        raise _fail(path, line, 'an event is an object with a string "event" field')
    name = event["event"]
    if name not in EVENTS:
        raise _fail(path, line, f"unknown event {name!r}; events are {', '.join(EVENTS)}")
    fields = EVENTS[name]
    for key, value in event.items():
        if key == "event":
            continue
        if key not in fields:
            raise _fail(path, line, f"unknown field {key!r} in a {name} event")
        if not _is_type(value, fields[key]):
            raise _fail(path, line, f"field {key!r} of a {name} event has a bad type")
    either = {"message": "text", "end": "line"}.get(name)
    if name == "message" and event.get("kind") not in KINDS:
        raise _fail(path, line, f"unknown kind {event.get('kind')!r}")
    if either is not None:
        if (either in event) == ("size" in event):
            raise _fail(path, line, f'{article(name)} {name} event has either "{either}" or "size"')
        if event.get("size", 0) < 0:
            raise _fail(path, line, "a size is a natural number")
    for key in fields:
        if key not in event and key not in (either, "size"):
            raise _fail(path, line, f"{article(name)} {name} event needs {key!r}")
    if "node" in event:
        _check_node(event["node"], path, line)


def parse(lines: Iterable[str], path: str = "<scenario>") -> Scenario:
    """A scenario from its lines, strictly checked (`file:line: problem`)."""
    header: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            raise _fail(path, number, "empty line")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise _fail(path, number, f"not JSON: {error.msg}") from None
        if header is None:
            check_header(value, path)
            header = value
        else:
            check_event(value, path, number)
            events.append(value)
    if header is None:
        raise _fail(path, 1, "empty file: no header")
    return Scenario(
        constants=dict(header["constants"]),
        events=events,
        generator=str(header.get("generator", "")),
        seed=header.get("seed"),
        notes=dict(header.get("notes", {})),
        source=path,
    )


def read(path: Path) -> Scenario:
    """The scenario in a file (`file:line: problem` on any format error)."""
    with path.open(encoding="utf-8") as lines:
        return parse(lines, str(path))


def dump(scenario: Scenario) -> Iterator[str]:
    """The scenario's lines, without newlines."""
    header: dict[str, Any] = {
        "format": FORMAT,
        "generator": scenario.generator,
        "seed": scenario.seed,
        "constants": scenario.constants,
    }
    if scenario.notes:
        header["notes"] = scenario.notes
    yield json.dumps(header, ensure_ascii=False)
    for event in scenario.events:
        yield json.dumps(event, ensure_ascii=False)


def write(scenario: Scenario, path: Path) -> None:
    """Write the scenario to `path`, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in dump(scenario)), encoding="utf-8")


def message_text(event: dict[str, Any], position: int) -> str:
    """A message event's text: its `text`, or `sized_text(size, position)`
    where `position` is the event's 0-based place among the scenario's events."""
    if "text" in event:
        return str(event["text"])
    return sized_text(int(event["size"]), position)


def end_line(event: dict[str, Any], position: int) -> str:
    """An end event's line: its `line`, or `sized_text(size, position)` as for messages."""
    if "line" in event:
        return str(event["line"])
    return sized_text(int(event["size"]), position)
