"""The scenario format: JSON lines, a header then one event per line.

Documented for other engines in `scenarios/README.md`. This module reads and
writes it with plain values (ints and strings), so that it depends on no
engine: the model's bit lists and the engine's integers are both made from
these values by the bridge.

Version 2 (`optchat-scenario/2`) adds ends given by their replies, zoom
events and expected refusals. Version 3 (`optchat-scenario/3`) adds events
relative to the state: a `start` of the k-th candidate, an `end` or `fail`
of the k-th running call, a settle that is a timeout on an unsettled view,
a timeout or settle not sent when no turn waits any more (the engine's turn
went on by itself), a message of another kind where the engine does not
take its own, which the bridge resolves against the model under the
engine's profile and sends as the absolute events they stand for. A file
is written in the lowest version that holds its events, so engines that
read only version 1 or 2 still read those files.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, overload

FORMAT_1 = "optchat-scenario/1"
FORMAT_2 = "optchat-scenario/2"
FORMAT_3 = "optchat-scenario/3"
FORMATS = (FORMAT_1, FORMAT_2, FORMAT_3)

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

MAX_SIZE = 1 << 24
"""The largest text a `size` may stand for (16 MiB): far above any message a
tool cap lets through, small enough to be made in memory."""

# Each event's fields beside "event", with their types; "message" takes
# either "text" or "size", and "end" exactly one of "line", "size", "replies";
# "start", "end" and "fail" name their node, or (version 3) the call relative
# to the state (RELATIVE).
EVENTS: dict[str, dict[str, Any]] = {
    "message": {"kind": str, "text": str, "size": int, "untaken": str},
    "start": {"node": list, "candidate": int},
    "end": {"node": list, "running": int, "line": str, "size": int, "replies": list},
    "fail": {"node": list, "running": int},
    "wait": {},
    "settle": {"unsettled": str},
    "timeout": {"unwaited": str},
    "retry": {},
    "zoom": {"id": int, "n": int},
}

RELATIVE = {
    "start": "candidate",
    "end": "running",
    "fail": "running",
    "settle": "unsettled",
    "timeout": "unwaited",
    "message": "untaken",
}
"""Version 3: the field that makes an event relative to the state: instead
of its `node`, `candidate` k starts the candidate at k modulo the number of
candidates, in queue order (SPEC 4); `running` k ends or fails the running
call at k modulo the number running, oldest first (with none, the event
waits for an event that makes one). A settle with `"unsettled": "timeout"`
is a timeout when the view is not settled; a timeout with `"unwaited":
"unsent"` is not sent when no turn waits (nor is a relative settle: under
SPEC 10 `resume: self` the turn went on by itself); a message with `"untaken":
"taken"` whose kind the engine's profile does not take (SPEC 10 `kinds`)
is of the taken kind at its kind's place in KINDS modulo the number taken
(scenarios/README.md)."""

WORDS = {"settle": "timeout", "timeout": "unsent", "message": "taken"}
"""The one value of a relative field that is a word, not a natural."""

FILLER = "chat é€ 😀 line\r\nnext\rmore\nend. "
"""The text a sized message repeats (SPEC 1 sizes are bytes): newlines of all
three kinds and 2-, 3- and 4-byte characters."""


class ScenarioError(ValueError):
    """A scenario that breaks the format; the message is `file:line: problem`."""


@dataclass(frozen=True)
class Scenario:
    """A header (`constants`, `generator`, `seed`, `notes`) and its events, as plain dicts."""

    constants: dict[str, int | float]
    events: Sequence[dict[str, Any]]
    """A list, or for a scenario streamed from its file (`stream`) its
    `Events`, read as they are asked for."""
    generator: str = "hand"
    seed: int | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    source: str = "<scenario>"
    """Where the scenario was read from, for `file:line: problem` messages."""
    lines: list[str] | None = None
    """Each event's JSON text as read from the file (None for a scenario made
    in memory or streamed): the bridge sends events without writing them again."""

    def text(self, position: int) -> str | None:
        """The JSON text of the event at `position` as its file holds it;
        None when the scenario was not read from a file (or its events were
        replaced since)."""
        if isinstance(self.events, Events):
            return self.events.text(position)
        if self.lines is None or len(self.lines) != len(self.events):
            return None
        return self.lines[position]

    def count(self) -> int:
        """How many events the scenario has; for a streamed one, those not
        read yet are counted without being parsed (`Events.count`)."""
        if isinstance(self.events, Events):
            return self.events.count()
        return len(self.events)

    def declared(self) -> str | None:
        """The format version a streamed scenario's file declares (its
        events are not all read to find the lowest one); None otherwise."""
        return self.events.version if isinstance(self.events, Events) else None


def sized_text(size: int, position: int) -> str:
    """The text of a message given by size: FILLER repeated from character
    `position % len(FILLER)`, cut to at most `size` bytes at a character
    boundary, then padded with `.` to exactly `size` bytes."""
    start = position % len(FILLER)
    repeats = size // len(FILLER) + 2
    cut = (FILLER[start:] + FILLER * repeats).encode("utf-8")[:size]
    text = cut.decode("utf-8", errors="ignore")
    return text + "." * (size - len(text.encode("utf-8")))


def text_of(item: dict[str, Any], name: str, position: int) -> str:
    """A text given in field `name`, or by its `size` at `position`: a
    message's text (`text`), an end's line (`line`), a reply (`text`)."""
    if name in item:
        return str(item[name])
    return sized_text(int(item["size"]), position)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


PROBLEM_MOST = 300
"""The most characters of a problem a format error says: what it quotes of
the file is cut there (a field of 100,000 characters is not echoed whole)."""


def _fail(path: str, line: int, problem: str) -> ScenarioError:
    if len(problem) > PROBLEM_MOST:
        problem = f"{problem[:PROBLEM_MOST]}... (cut from {len(problem):,} characters)"
    return ScenarioError(f"{path}:{line}: {problem}")


def _is_natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_node(value: Any, path: str, line: int) -> None:
    if not (isinstance(value, list) and len(value) == 2 and all(_is_natural(v) for v in value)):
        raise _fail(path, line, f"node must be [level, index] of two naturals, not {value!r}")


def _is_type(value: Any, kind: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, kind)


def _check_size(value: Any, path: str, line: int) -> None:
    if not _is_natural(value) or value > MAX_SIZE:
        raise _fail(path, line, f"a size is a natural number of at most {MAX_SIZE}, not {value!r}")


def check_header(header: Any, path: str) -> None:
    """Refuse a header with a missing or unknown field or a bad type."""
    if not isinstance(header, dict):
        raise _fail(path, 1, "the first line must be the header object")
    if header.get("format") not in FORMATS:
        raise _fail(
            path,
            1,
            f"format must be {' or '.join(map(repr, FORMATS))}, not {header.get('format')!r}",
        )
    unknown = set(header) - {"format", "generator", "seed", "constants", "notes"}
    if unknown:
        raise _fail(path, 1, f"unknown header field {sorted(unknown)[0]!r}")
    if not isinstance(header.get("generator", ""), str):
        raise _fail(path, 1, f"generator must be a string, not {header['generator']!r:.60}")
    seed = header.get("seed")
    if seed is not None and not _is_type(seed, int):
        raise _fail(path, 1, f"seed must be an integer or null, not {seed!r:.60}")
    if not isinstance(header.get("notes", {}), dict):
        raise _fail(path, 1, f"notes must be a JSON object, not {header['notes']!r:.40}")
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


def _check_replies(replies: list[Any], path: str, line: int) -> None:
    if not replies:
        raise _fail(path, line, "an end's replies hold at least one reply")
    for reply in replies:
        if not isinstance(reply, dict) or len(reply) != 1 or not set(reply) <= {"text", "size"}:
            raise _fail(path, line, f'a reply is {{"text": ...}} or {{"size": n}}, not {reply!r}')
        if "text" in reply and not isinstance(reply["text"], str):
            raise _fail(path, line, "a reply's text is a string")
        if "size" in reply:
            _check_size(reply["size"], path, line)


def _only_in(key: str, name: str, version: str) -> bool:
    """Whether a field of an event is one a file of `version` cannot have."""
    if key == "replies":
        return version == FORMAT_1
    return key == RELATIVE.get(name) and version != FORMAT_3


def check_event(event: Any, path: str, line: int, version: str = FORMAT_3) -> None:
    """Refuse an event with an unknown name or field, or a bad type; in a
    version 1 file, also what only version 2 has, and in a version 1 or 2
    file what only version 3 has."""
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        raise _fail(path, line, 'an event is an object with a string "event" field')
    name = event["event"]
    if name not in EVENTS or (version == FORMAT_1 and name == "zoom"):
        known = [e for e in EVENTS if version != FORMAT_1 or e != "zoom"]
        raise _fail(path, line, f"unknown event {name!r}; events are {', '.join(known)}")
    fields = EVENTS[name]
    for key, value in event.items():
        if key == "event":
            continue
        if key == "refused" and version != FORMAT_1:
            if not isinstance(value, str) or not value:
                raise _fail(path, line, "refused names the rule the event breaks")
            continue
        if key not in fields or _only_in(key, name, version):
            raise _fail(path, line, f"unknown field {key!r} in {article(name)} {name} event")
        if not _is_type(value, fields[key]):
            raise _fail(path, line, f"field {key!r} of {article(name)} {name} event has a bad type")
    if name == "message" and event.get("kind") not in KINDS and "refused" not in event:
        raise _fail(path, line, f"unknown kind {event.get('kind')!r}")
    texts = {"message": ("text", "size"), "end": ("line", "size", "replies")}.get(name)
    if texts is not None and sum(key in event for key in texts) != 1:
        said = " or ".join(f'"{key}"' for key in texts if version != FORMAT_1 or key != "replies")
        raise _fail(path, line, f"{article(name)} {name} event has exactly one of {said}")
    if "size" in event:
        _check_size(event["size"], path, line)
    if "replies" in event:
        _check_replies(event["replies"], path, line)
    relative = RELATIVE.get(name)
    for key in fields:
        if key in event or (texts is not None and key in texts) or key == relative:
            continue
        if key == "node" and relative in event:
            continue
        raise _fail(path, line, f"{article(name)} {name} event needs {key!r}")
    if relative in event and "node" in event:
        raise _fail(path, line, f"{article(name)} {name} event has one of 'node' or {relative!r}")
    word = WORDS.get(name)
    if word is not None and event.get(relative, word) != word:
        said = f'{article(name)} {name}\'s {relative} is "{word}"'
        raise _fail(path, line, f"{said}, not {event[relative]!r}")
    if word is None and relative in event and not _is_natural(event[relative]):
        raise _fail(path, line, f"{article(name)} {name} event's {relative} is a natural number")
    if "node" in event:
        _check_node(event["node"], path, line)
    for key in ("id", "n"):
        if key in event and not _is_natural(event[key]):
            raise _fail(path, line, f"a zoom's {key} is a natural number")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON fraction as a float, refused when too large for one (1e400)."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text:.40} is too large (it would read as infinity)")
    return value


_STRICT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite)
"""Made once: `json.loads` with options makes a decoder at every call, a
cost the replay pays at every event it reads."""


def loads(text: str) -> Any:
    """One JSON value, strictly: no NaN or Infinity, nor a number too large
    for a float; ValueError says what is wrong."""
    # Most texts are one value with nothing around it, read in one pass
    # here; any other goes through `decode`, which words what is wrong.
    try:
        value, end = _STRICT.raw_decode(text)
    except (ValueError, RecursionError):
        end = -1
    if end == len(text):
        return value
    try:
        return _STRICT.decode(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column" if "\n" in text.rstrip("\n") else "column"
        raise ValueError(f"not JSON: {error.msg} ({where} {error.colno})") from None
    except ValueError as error:
        # Python refuses integers of more than 4,300 digits with its own words.
        if "digits" in str(error):
            raise ValueError("a number with too many digits") from None
        raise


BEAT = 10.0
"""The most seconds reading a scenario goes without a line on stderr."""


def reading_beat(path: str, clock: Callable[[], float] = time.monotonic) -> Callable[[int], None]:
    """A progress callback for reading `path`: given the number of lines read
    so far, it prints one line on stderr once BEAT seconds have passed since
    the start or since the last line it printed."""
    began = clock()
    last = began

    def beat(lines: int) -> None:
        nonlocal last
        now = clock()
        if now - last >= BEAT:
            last = now
            print(f"  ... reading {path}: {lines} lines ({now - began:.0f} s)", file=sys.stderr)

    return beat


def parse(
    lines: Iterable[str | bytes],
    path: str = "<scenario>",
    checked: bool = True,
    beat: Callable[[int], None] | None = None,
) -> Scenario:
    """A scenario from its lines, strictly checked (`file:line: problem`);
    without `checked`, its events are only read as JSON (for a file known to
    be checked already, byte for byte). `beat` is called with the lines read
    every 1,024 lines; by default `reading_beat(path)`, so a large file
    (50 MB) says on stderr that it is being read."""
    header: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    texts: list[str] = []
    tick = reading_beat(path) if beat is None else beat
    for number, given in enumerate(lines, start=1):
        if not number % 1024:
            tick(number)
        raw, value = _value(given, path, number)
        if header is None:
            check_header(value, path)
            header = value
        else:
            if checked:
                check_event(value, path, number, header["format"])
            events.append(value)
            texts.append(raw)
    if header is None:
        raise _fail(path, 1, "empty file: no header")
    return replace(_scenario(header, events, path), lines=texts)


def _value(raw: str | bytes, path: str, number: int) -> tuple[str, Any]:
    """Line `number` of a scenario as text and as the JSON value it holds."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _fail(path, number, f"not UTF-8 (byte {error.start + 1})") from None
    if not raw.strip():
        raise _fail(path, number, "empty line")
    try:
        return raw, loads(raw)
    except ValueError as error:
        raise _fail(path, number, str(error)) from None


def _scenario(header: dict[str, Any], events: Sequence[dict[str, Any]], path: str) -> Scenario:
    return Scenario(
        constants=dict(header["constants"]),
        events=events,
        generator=str(header.get("generator", "")),
        seed=header.get("seed"),
        notes=dict(header.get("notes", {})),
        source=path,
    )


BLOCK = 1 << 20
"""How much of a file `Events.count` reads at a time to count its lines."""


class Events(Sequence[dict[str, Any]]):
    """A scenario's events read from its open file as they are asked for:
    the event at position k is read (and checked as `parse` checks it) the
    first time an event at k or later is asked for, so a replay that stops
    early reads only the lines before where it stopped, and a bad line is
    found, with its `file:line: problem`, when the replay comes to it.
    Whatever needs them all (`len`, a slice to the end) reads them all.
    The file is closed once read to its end (or by `close`)."""

    def __init__(self, file: IO[bytes], path: str, version: str, checked: bool) -> None:
        self.file: IO[bytes] | None = file
        self.path, self.version, self.checked = path, version, checked
        self.read: list[dict[str, Any]] = []
        self.texts: list[str] = []
        self.counted: int | None = None
        """The events counted by `count`, which read the file's rest to its end."""

    def _next(self) -> bool:
        """Read one more event; False at the end of the file."""
        if self.file is None:
            return False
        raw = self.file.readline()
        if not raw:
            self.close()
            return False
        number = len(self.read) + 2
        text, value = _value(raw.removesuffix(b"\n"), self.path, number)
        if self.checked:
            check_event(value, self.path, number, self.version)
        self.read.append(value)
        self.texts.append(text)
        return True

    def _upto(self, position: int) -> None:
        while len(self.read) <= position and self._next():
            pass

    def _all(self) -> list[dict[str, Any]]:
        while self._next():
            pass
        return self.read

    @overload
    def __getitem__(self, position: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, position: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, position: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(position, slice):
            stop = position.stop
            if stop is None or stop < 0 or (position.start or 0) < 0:
                return self._all()[position]
            self._upto(stop - 1)
            return self.read[position]
        if position < 0:
            return self._all()[position]
        self._upto(position)
        return self.read[position]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        at = 0
        while True:
            self._upto(at)
            if at >= len(self.read):
                return
            yield self.read[at]
            at += 1

    def __len__(self) -> int:
        return len(self._all())

    def __bool__(self) -> bool:
        self._upto(0)
        return bool(self.read)

    def text(self, position: int) -> str:
        """The JSON text of the event at `position`, as the file holds it."""
        self._upto(position)
        return self.texts[position]

    def count(self) -> int:
        """How many events the file holds: those read, and one per line of
        the rest, counted in blocks without being decoded or parsed (a bad
        line there is not looked at); the file is then closed."""
        if self.counted is not None:
            return self.counted
        counted = len(self.read)
        if self.file is not None:
            last = b"\n"
            while block := self.file.read(BLOCK):
                counted += block.count(b"\n")
                last = block[-1:]
            counted += last != b"\n"
            self.close()
        self.counted = counted
        return counted

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def open_file(path: Path) -> IO[bytes]:
    """A scenario file opened to be read; ScenarioError when it cannot be."""
    try:
        return path.open("rb")
    except IsADirectoryError:
        raise ScenarioError(f"{path}: is a directory, not a scenario file") from None
    except OSError as error:
        raise ScenarioError(f"{path}: cannot be read: {error.strerror or error}") from None


def stream(path: Path, checked: bool = True) -> Scenario:
    """The scenario in a file with its header read and checked, and its
    events read only as they are asked for (`Events`): a replay that stops
    at event 10 of a 50 MB file reads a few lines of it."""
    where = str(path)
    file = open_file(path)
    try:
        first = file.readline()
        if not first:
            raise _fail(where, 1, "empty file: no header")
        header = _value(first.removesuffix(b"\n"), where, 1)[1]
        check_header(header, where)
    except BaseException:
        file.close()
        raise
    return _scenario(header, Events(file, where, header["format"], checked), where)


def file_lines(data: bytes) -> list[bytes]:
    """A JSON lines file's lines: split at `\\n` only (U+2028 and a lone `\\r`
    are characters inside a line), without the last newline."""
    if data.endswith(b"\n"):
        data = data[:-1]
    return data.split(b"\n") if data else []


def read_bytes(path: Path) -> bytes:
    """A scenario file's bytes; ScenarioError when it cannot be read."""
    with open_file(path) as file:
        try:
            return file.read()
        except OSError as error:
            raise ScenarioError(f"{path}: cannot be read: {error.strerror or error}") from None


def read(path: Path) -> Scenario:
    """The scenario in a file (`file:line: problem` on any format error)."""
    return parse(file_lines(read_bytes(path)), str(path))


def uses_version_2(events: Iterable[dict[str, Any]]) -> bool:
    """Whether events need version 2: replies, zoom, or an expected refusal."""
    return any(
        event["event"] == "zoom" or "replies" in event or "refused" in event for event in events
    )


def is_relative(event: dict[str, Any]) -> bool:
    """Whether an event names its call relative to the state (version 3)."""
    field = RELATIVE.get(event["event"])
    return field is not None and field in event


def version(events: list[dict[str, Any]]) -> str:
    """The lowest format version that holds the events."""
    if any(map(is_relative, events)):
        return FORMAT_3
    return FORMAT_2 if uses_version_2(events) else FORMAT_1


def header(scenario: Scenario) -> dict[str, Any]:
    """The scenario's header line as an object, in the lowest version that holds its events."""
    out: dict[str, Any] = {
        "format": scenario.declared() or version(scenario.events),
        "generator": scenario.generator,
        "seed": scenario.seed,
        "constants": scenario.constants,
    }
    if scenario.notes:
        out["notes"] = scenario.notes
    return out


def line(value: dict[str, Any]) -> str:
    """One JSON line, with `\\u` escapes only for text that has no UTF-8 form."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def header_line(scenario: Scenario) -> str:
    return line(header(scenario))


def dump(scenario: Scenario) -> Iterator[str]:
    """The scenario's lines, without newlines."""
    yield header_line(scenario)
    for event in scenario.events:
        yield line(event)


def write(scenario: Scenario, path: Path) -> None:
    """Write the scenario to `path`, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(text + "\n" for text in dump(scenario)), encoding="utf-8")
