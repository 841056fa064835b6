"""A chat directory on disk (SPEC 6): the logs, the saved view, the
constants, the lock, and loading a planner back from them.

Layout of a chat directory:

- `main/YYYY-MM-DD.jsonl`: one message per line, `{i, kind, text, size, date}`;
  each message of an append split into n > 1 messages (SPEC 1) also has
  `part: [k, n]`, k counting from 0 (absent: an append of one message).
- `tree/YYYY-MM-DD.jsonl`, in the order things happened:
  `{l, i, text, size, t}` a built node; `{batch, merges, shrinking, t}` a
  batch of the chat view (`batch: "chat"`) or of the compaction view
  (`batch: "compaction"`), logged whenever one runs, also when it merges
  nothing; `{fail: [l, i], t}` a failed call. `t` is T when it was written.
- `view.json`: `{t, view, shrinking, compaction, compaction_shrinking}`,
  written to `view.json.tmp`, fsynced, and only then renamed over
  `view.json`, after every message.
- `constants.json`: the constants the chat was made with (SPEC 7) and,
  under `profile`, its engine profile's options (SPEC 10), written once,
  when the chat is made, the same way as `view.json`.
- `lock`: the owner's pid, held with `flock` while the chat is open and
  emptied at close. The kernel drops the `flock` of a dead process, so a
  lock left by a crash is taken over (with a warning naming the old pid).
  A second open of a chat this process already has open for writing is
  refused as such (Locked, "already open in this process"), not blamed on
  another process.

Writing. Each record is one write, continued until the whole record is on
disk, followed by `fsync`; nothing is edited or deleted. Any failed write
(a full disk, an I/O error) raises WriteFailed naming the file; the record
may then be half on disk, so the store refuses every later call (Closed)
until the directory is opened again. A record cut short is a torn line,
skipped at the next load, so once the disk has room again the directory
opens to its last acknowledged state: every message whose `append`
returned, and perhaps the one that was being written.

Split appends. An append split into several messages is one
acknowledgement: after a crash its messages are all in the chat or none
are. Its records are written message by message, as any other; a main log
whose last message has `part: [k, n]` with k < n - 1 ends in an append cut
short, and its k + 1 messages, with every tree record logged after them (T
past the first of them) and a `view.json` saved among them, are skipped at
load with a warning and marked as torn lines are (below), so that they stay
skipped. A chat written before `part` existed has none and loads as before.

Torn lines. A crash or a full disk in the middle of a write leaves bad bytes
only at the end of a file, so the lines that end a file without being JSON
objects (and a last line without its newline, whatever it holds) are torn:
each is skipped with a warning and named by a `{"torn": n}` record written
after the file's last newline, so that later loads skip it wherever it ends
up (the same marker skips the lines of an append cut short). A marker that
is itself cut short is one more torn line at the next load. Any other line
that is not a JSON object is a StoreError naming file and line.

Constants. Those that shape the saved state (NODE, CEILING, FLOOR,
CCEILING, CFLOOR) must be the ones the chat was made with; another value is
a StoreError naming each ("this chat was made with ceiling=128000, opened
with ceiling=16000"). The others (JOBS, AHEAD, TRIES, FAILURES, RETRY,
SETTLE_TIMEOUT, the tool cap and split) govern one run: the caller's are
used, or the stored ones when the caller gives none. The profile shapes
the saved state too (its lines, the calls its queue allows): a profile
given that differs from the stored one is a StoreError naming each option
("... made with profile.trim_lines=false, opened with
profile.trim_lines=true"); none given opens with the stored one. A chat made
before constants were stored (no `constants.json`) opens with the constants
and profile given (SPEC's when none), and they are stored once the load
succeeded: from then on a mismatch is named. Before that, the fold checks
the constants against the log: at every message, the batches that CEILING
and FLOOR (the chat view) and CCEILING and CFLOOR (the compaction view) make
must be the logged ones, merges and shrinking flag, and a message without a
logged batch must be one where they make none (its last message aside,
completed as below); a built node may not be longer than NODE. A
contradiction is a StoreError naming the constants, the values given, the
record (or T) and both batches, and nothing is written. Constants that the
log cannot tell apart (a FLOOR below any size the view ever reached, say)
make the same batches, and those given are stored. A
`constants.json` without `profile` was written before profiles were stored,
when every chat ran SPEC's profile: it stands for SPEC's profile.

Persisted: every message, every built node (with the free ones), every
batch, every failed call. Not persisted: running calls (lost at a restart:
their nodes are candidates again), held nodes (a restart counts as a retry
tick) and a waiting turn. Failure counts survive; a node whose failures
reached FAILURES but whose cut line was not logged is built at load.

Loading folds the logs: messages and nodes are replayed in the logged
order, and each logged batch's merges are replayed one by one, each checked
to be the pair the due order picks at that point; the view is never
recomputed by another rule. Only the last message can lack the records that
follow it (a crash inside `Chat.append`); its free nodes and batches are
then completed by the same rules. The fold is then checked against
`view.json`, which may lag one message behind (a crash before the rename)
and is otherwise an exact match or an error. Nothing is written before all
of that has been checked: a StoreError at load leaves the directory as it
was (its lock aside). Only then are the repairs written: torn-line markers,
the records completing the last message, over-failed nodes, the constants
of a new or older chat, and `view.json` when it lags.

Reading only. `read_only=True` opens a chat without writing anything, not
even the repairs (the loaded state has them in memory only): the lock is
shared with other readers and refused while a writer owns it (a directory
without a lock file, never opened for writing, is read without one), and
every call that would change the chat is refused (ReadOnly). A directory
that cannot be written (a read-only mount, no permission) must be opened
this way; opening it for writing is a StoreError that says so.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from impl.constants import Constants
from impl.errors import Closed, Locked, ReadOnly, Refused, StoreError, WriteFailed
from impl.planner import Planner, check_message
from impl.profile import OPTIONS, Profile
from impl.text import size
from impl.tree import Node, name

Clock = Callable[[], datetime]
"""The time now, timezone-aware; injected so tests choose the dates."""

HELD: dict[tuple[int, int], list[bool]] = {}
"""The lock files this process holds, by (device, inode): for each open
Chat on it, whether it writes."""

SHAPE = ("node", "ceiling", "floor", "cceiling", "cfloor")
"""The constants a chat keeps for life: its logged decisions depend on them."""


def local_now() -> datetime:
    """The wall clock in the local timezone."""
    return datetime.now().astimezone()


@dataclass(frozen=True, slots=True)
class Line:
    """One record of a log, with where it was read."""

    path: Path
    number: int
    record: dict[str, Any]

    def where(self) -> str:
        return f"{self.path}:{self.number}"


def _write_whole(path: Path, data: bytes, mode: int) -> None:
    """Write all of `data` to `path` (opened with `mode`: append or
    truncate), however many calls it takes, then fsync it (SPEC 6)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o644)
    try:
        rest = memoryview(data)
        while rest:
            written = os.write(fd, rest)
            if not written:  # no error but no progress: retrying would spin
                raise OSError(errno.EIO, "the write made no progress")
            rest = rest[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


def _encode(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _loads(raw: bytes) -> Any:
    """Parsed JSON; ValueError for anything that is not JSON, nesting too
    deep for the parser included."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise StoreError(f"{path}: cannot be read: {_why(error, writing=False)}") from None


def _object(raw: bytes) -> dict[str, Any] | None:
    """The line's JSON object, or None when it holds none."""
    try:
        record = _loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _is_marker(record: dict[str, Any] | None) -> bool:
    """Whether a record is a `{"torn": n}` marker (module doc)."""
    return (
        record is not None
        and set(record) == {"torn"}
        and isinstance(record["torn"], int)
        and not isinstance(record["torn"], bool)
    )


@dataclass
class Log:
    """A day-split log read and checked (module doc): its records, oldest
    file first, and per file the marker bytes its unmarked torn lines need."""

    lines: list[Line]
    marks: list[tuple[Path, bytes]]


def read_log(folder: Path) -> Log:
    """Read the log in `folder` without writing; each torn line is skipped
    with a warning, any other line that is not a JSON object is a
    StoreError naming file and line (module doc)."""
    lines: list[Line] = []
    marks: list[tuple[Path, bytes]] = []
    for path in sorted(folder.glob("*.jsonl")):
        rows = _read(path).split(b"\n")
        terminated = rows[-1] == b""
        if terminated:
            rows.pop()
        records = [_object(raw) for raw in rows]
        if not terminated:
            records[-1] = None
        marked = {record["torn"] for record in records if _is_marker(record)}
        tail = len(records)
        while tail and (records[tail - 1] is None or _is_marker(records[tail - 1])):
            tail -= 1
        torn = []
        for number, (raw, record) in enumerate(zip(rows, records, strict=True), start=1):
            if number in marked or _is_marker(record):
                continue
            if record is not None:
                lines.append(Line(path, number, record))
            elif number > tail:
                warnings.warn(f"{path}:{number}: torn line skipped", stacklevel=3)
                torn.append(number)
            else:
                raise StoreError(f"{path}:{number}: not a JSON object: {raw[:80]!r}")
        if torn:
            markers = b"".join(_encode({"torn": number}) for number in torn)
            marks.append((path, (b"" if terminated else b"\n") + markers))
    return Log(lines, marks)


def _field(line: Line, key: str, kind: type) -> Any:
    value = line.record.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StoreError(f"{line.where()}: field {key!r} must be {kind.__name__}, not {value!r}")
    if kind is int and value < 0:
        raise StoreError(f"{line.where()}: field {key!r} must not be negative, not {value}")
    return value


def _node(line: Line, value: Any) -> Node:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise StoreError(f"{line.where()}: {value!r} is not a node [l, i]")
    return value[0], value[1]


def node_records(planner: Planner, nodes: list[Node]) -> list[dict[str, Any]]:
    """The tree records of built nodes, with their texts (SPEC 6)."""
    records = []
    for level, index in nodes:
        text = planner.text((level, index))
        assert text is not None
        records.append(
            {"l": level, "i": index, "text": text, "size": size(text), "t": planner.count}
        )
    return records


def batch_record(planner: Planner, compaction: bool) -> dict[str, Any]:
    """The tree record of the batch that just ran on a view (SPEC 6)."""
    view = planner.cview if compaction else planner.chat
    return {
        "batch": "compaction" if compaction else "chat",
        "merges": [list(node) for node in view.merges],
        "shrinking": view.shrinking,
        "t": planner.count,
    }


def _settings_for(
    path: Path,
    stored: tuple[Constants, Profile] | None,
    constants: Constants | None,
    profile: Profile | None,
) -> tuple[Constants, Profile]:
    """The constants and profile to open with: the caller's, checked against
    the stored ones, or the stored ones (module doc, SPEC 7, 10)."""
    if stored is None:
        return constants or Constants(), profile or Profile()
    made_constants, made_profile = stored
    differ: list[tuple[str, str, str]] = []
    if constants is not None:
        differ += [
            (name, str(getattr(made_constants, name)), str(getattr(constants, name)))
            for name in SHAPE
            if getattr(made_constants, name) != getattr(constants, name)
        ]
    if profile is not None:
        made, given = made_profile.to_json(), profile.to_json()
        differ += [
            (f"profile.{name}", json.dumps(made[name]), json.dumps(given[name]))
            for name in OPTIONS
            if made[name] != given[name]
        ]
    if differ:
        made_with = ", ".join(f"{name}={was}" for name, was, _ in differ)
        opened = ", ".join(f"{name}={now}" for name, _, now in differ)
        raise StoreError(f"{path}: this chat was made with {made_with}, opened with {opened}")
    return constants or made_constants, made_profile


class Store:
    """An open chat directory, owned by this process, or shared with other
    readers when `read_only` (SPEC 6, module doc)."""

    def __init__(self, path: Path | str, clock: Clock = local_now, read_only: bool = False) -> None:
        self.path = Path(path)
        self.clock = clock
        self.read_only = read_only
        self._closed = False
        self._failure: str | None = None
        if not read_only:
            try:
                self.path.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"{self.path}: cannot be made: {_why(error)}") from None
        elif not (self.path / "main").is_dir():
            raise StoreError(f"{self.path}: not a chat directory (no main/)")
        self._held: tuple[int, int] | None = None
        self._lock = self._take_lock()
        self._newest = {
            folder: max((p.name for p in (self.path / folder).glob("*.jsonl")), default="")
            for folder in ("main", "tree")
        }

    def _take_lock(self) -> int:
        """Own the directory: `flock` on `lock`, exclusive and holding our
        pid, or shared when reading only. A live writer refuses us; a lock
        left by a dead process is taken over."""
        lock = self.path / "lock"
        try:
            fd = os.open(lock, os.O_RDONLY if self.read_only else os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            if self.read_only and error.errno == errno.ENOENT:
                return -1
            why = _why(error, writing=not self.read_only)
            raise StoreError(f"{lock}: cannot be opened: {why}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise StoreError(f"{lock}: not a regular file; the lock must be one")
            mode = fcntl.LOCK_SH if self.read_only else fcntl.LOCK_EX
            held = os.fstat(fd)
            key = (held.st_dev, held.st_ino)
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                if key in HELD:
                    how = "for writing" if any(HELD[key]) else "read only"
                    raise Locked(
                        f"{lock}: the chat is already open ({how}) in this process "
                        f"(pid {os.getpid()}); close that Chat first, or use it"
                    ) from None
                owner = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                raise Locked(
                    f"{lock}: the chat is open in another live process (pid {owner})"
                ) from None
            if not self.read_only:
                self._own(fd, lock)
            HELD.setdefault(key, []).append(not self.read_only)
            self._held = key
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _own(self, fd: int, lock: Path) -> None:
        """Write our pid into the lock we hold, warning about a dead owner's."""
        try:
            old = os.pread(fd, 64, 0).decode(errors="replace").strip()
            if old and old != str(os.getpid()):
                warnings.warn(
                    f"{lock}: took over the lock of process {old}, which is gone", stacklevel=5
                )
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            os.fsync(fd)
        except OSError as error:
            raise StoreError(f"{lock}: cannot be written: {_why(error)}") from None

    def close(self) -> None:
        """Release the lock, emptying it (a pid left in it names an owner
        that died); the store then refuses every call (SPEC 6)."""
        if self._closed:
            return
        self._closed = True
        if self._lock >= 0:
            if not self.read_only:
                # An owner's pid left behind only costs the next owner a warning.
                with contextlib.suppress(OSError):
                    os.ftruncate(self._lock, 0)
            os.close(self._lock)
            self._lock = -1
        if self._held is not None:
            modes = HELD[self._held]
            modes.remove(not self.read_only)
            if not modes:
                del HELD[self._held]
            self._held = None

    def check(self, write: bool) -> None:
        """Refuse any call once closed or after a failed write, and a call
        that writes when reading only (module doc)."""
        if self._closed:
            raise Closed(f"{self.path}: this chat is closed; open its directory again")
        if self._failure is not None:
            raise Closed(
                f"{self.path}: a write failed ({self._failure}); this chat refuses every "
                "call until it is closed and its directory opened again"
            )
        if write and self.read_only:
            raise ReadOnly(f"{self.path}: opened with read_only=True; this call would change it")

    @contextlib.contextmanager
    def _writing(self, path: Path) -> Iterator[None]:
        """Around every write: refused when `check` refuses writing; an
        OSError fails the store (module doc)."""
        self.check(write=True)
        try:
            yield
        except OSError as error:
            self._failure = f"{path}: cannot be written: {_why(error)}"
            raise WriteFailed(
                f"{self._failure}; the chat refuses every call until its directory is opened again"
            ) from error

    def _append(self, path: Path, data: bytes) -> None:
        """One record appended whole and fsynced (SPEC 6)."""
        with self._writing(path):
            _write_whole(path, data, os.O_APPEND)

    def _replace(self, name: str, data: bytes) -> None:
        """A file written whole to a temporary, fsynced, then renamed into
        place (SPEC 6)."""
        target = self.path / name
        temp = self.path / f"{name}.tmp"
        with self._writing(target):
            _write_whole(temp, data, os.O_TRUNC)
            os.replace(temp, target)
            dirfd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(dirfd)
            finally:
                os.close(dirfd)

    def _day(self, folder: str) -> Path:
        """Today's file, or the newest file if the clock went back (a
        timezone change): logs are read in file-name order, which must stay
        the order of writing."""
        today = f"{self.clock().strftime('%Y-%m-%d')}.jsonl"
        self._newest[folder] = max(today, self._newest[folder])
        return self.path / folder / self._newest[folder]

    def log_message(self, i: int, kind: str, text: str, part: tuple[int, int] | None = None) -> str:
        """Log message i, part k of n of a split append when `part` is
        (k, n); returns its date (SPEC 6, module doc)."""
        date = self.clock().isoformat(timespec="seconds")
        record: dict[str, Any] = {
            "i": i,
            "kind": kind,
            "text": text,
            "size": size(text),
            "date": date,
        }
        if part is not None:
            record["part"] = list(part)
        self._append(self._day("main"), _encode(record))
        return date

    def log_tree(self, record: dict[str, Any]) -> None:
        """Log one tree record (SPEC 6)."""
        self._append(self._day("tree"), _encode(record))

    def log_nodes(self, planner: Planner, nodes: list[Node]) -> None:
        """Log built nodes with their texts (SPEC 6)."""
        for record in node_records(planner, nodes):
            self.log_tree(record)

    def log_batch(self, planner: Planner, compaction: bool) -> None:
        """Log the batch that just ran on the chat or compaction view (SPEC 6)."""
        self.log_tree(batch_record(planner, compaction))

    def log_failure(self, planner: Planner, node: Node) -> None:
        """Log a failed call, so FAILURES counts across restarts (SPEC 4, 6)."""
        self.log_tree({"fail": list(node), "t": planner.count})

    def save_view(self, planner: Planner) -> None:
        """Write view.json whole, then rename it into place (SPEC 6)."""
        self._replace("view.json", json.dumps(_saved(planner)).encode())

    def load(
        self, constants: Constants | None, profile: Profile | None = None
    ) -> tuple[Planner, list[str]]:
        """Fold the logs into a planner (with the constants and profile
        chosen as the module doc says) and the messages' dates, complete an
        interrupted last message and check view.json, then write the repairs
        unless reading only (module doc, SPEC 6)."""
        new = self._check_layout()
        stored = self._stored_settings()
        path = self.path / "constants.json"
        planner = Planner(*_settings_for(path, stored, constants, profile))
        main, tree = read_log(self.path / "main"), read_log(self.path / "tree")
        saved = self._saved_view()
        cut = _cut_append(main, tree)
        if cut is not None and saved is not None and saved["t"] > cut:
            saved = None  # saved inside the append cut short: written again below
        dates, messages = _messages(main)
        checking = self.path / "tree" if stored is None else None
        fold = _Fold(planner, messages, saved, checking)
        for line in tree.lines:
            fold.record(line)
        repairs = fold.finish()
        if self.read_only:
            return planner, dates
        if new:
            for folder in ("main", "tree"):
                with self._writing(self.path / folder):
                    (self.path / folder).mkdir(exist_ok=True)
        for path, marks in main.marks + tree.marks:
            self._append(path, marks)
        for record in repairs:
            self.log_tree(record)
        if stored is None:
            made = {**asdict(planner.constants), "profile": planner.profile.to_json()}
            self._replace("constants.json", json.dumps(made).encode())
        if fold.saved != _saved(planner):
            self.save_view(planner)
        return planner, dates

    def _check_layout(self) -> bool:
        """Whether the chat is new (no log and no saved view yet); an older
        chat must have both logs' folders (SPEC 6)."""
        folders = [self.path / "main", self.path / "tree"]
        logged = any(any(folder.glob("*.jsonl")) for folder in folders)
        if not logged and not (self.path / "view.json").exists():
            return True
        for folder in folders:
            if not folder.is_dir():
                raise StoreError(f"{folder}: missing, but the chat has logs or a saved view")
        return False

    def _stored_settings(self) -> tuple[Constants, Profile] | None:
        """The constants and profile in `constants.json` (module doc)."""
        path = self.path / "constants.json"
        if not path.exists():
            return None
        try:
            stored = _loads(_read(path))
            if not isinstance(stored, dict):
                raise ValueError("not a JSON object")
            profile = Profile.from_json(stored.pop("profile", {}))
            return Constants(**stored), profile
        except (ValueError, TypeError) as error:
            raise StoreError(f"{path}:1: not the constants of a chat: {error}") from None

    def _saved_view(self) -> dict[str, Any] | None:
        path = self.path / "view.json"
        if not path.exists():
            return None
        try:
            saved = _loads(_read(path))
        except ValueError as error:
            raise StoreError(f"{path}:1: not JSON: {error}") from None
        if not isinstance(saved, dict) or not isinstance(saved.get("t"), int):
            raise StoreError(f"{path}:1: not a saved view")
        return saved


def _cut_append(main: Log, tree: Log) -> int | None:
    """When the main log ends in a split append cut short (module doc): the
    id of its first message, after taking its messages and the tree records
    logged after them out of the logs, marked to be skipped; else None."""
    if not main.lines:
        return None
    last = main.lines[-1]
    part = last.record.get("part")
    if part is None:
        return None
    if (
        not isinstance(part, list)
        or len(part) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in part)
        or not 0 <= part[0] < part[1]
        or part[0] >= len(main.lines)
    ):
        raise StoreError(f"{last.where()}: field 'part' must be [k, n] with 0 <= k < n")
    k, n = part
    if k == n - 1:
        return None
    cut = main.lines[len(main.lines) - k - 1 :]
    for j, line in enumerate(cut):
        if line.record.get("part") != [j, n]:
            raise StoreError(f"{line.where()}: part {j} of {n} of a split append expected")
    first = len(main.lines) - k - 1
    later = len(tree.lines)
    while later and _t_past(tree.lines[later - 1], first):
        later -= 1
    gone = tree.lines[later:]
    warnings.warn(
        f"{cut[0].where()}: messages {first} to {first + k} of an append of {n} messages, "
        "cut short, skipped",
        stacklevel=3,
    )
    for log, lines in ((main, cut), (tree, gone)):
        del log.lines[len(log.lines) - len(lines) :]
        for path in dict.fromkeys(line.path for line in lines):
            marks = b"".join(_encode({"torn": ln.number}) for ln in lines if ln.path == path)
            log.marks.append((path, marks))
    return first


def _t_past(line: Line, first: int) -> bool:
    """Whether a tree record was logged after message `first` was."""
    t = line.record.get("t")
    return isinstance(t, int) and t > first


def _why(error: OSError, writing: bool = True) -> str:
    """An OSError's problem in words, with a hint where one helps."""
    why = error.strerror or str(error)
    if writing and error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why += " (a directory that cannot be written can be opened with read_only=True)"
    return why


def _messages(main: Log) -> tuple[list[str], list[tuple[str, str]]]:
    """The logged messages' dates and `(kind, text)`, checked (SPEC 1, 6)."""
    dates: list[str] = []
    messages: list[tuple[str, str]] = []
    for line in main.lines:
        i = _field(line, "i", int)
        if i != len(dates):
            problem = f"message {len(dates)} is missing" if i > len(dates) else "out of order"
            raise StoreError(f"{line.where()}: message id {i}: {problem}")
        kind, text = _field(line, "kind", str), _field(line, "text", str)
        try:
            check_message(kind, text)
        except Refused as refused:
            raise StoreError(f"{line.where()}: message {i}: {refused}") from None
        if _field(line, "size", int) != size(text):
            raise StoreError(f"{line.where()}: message {i}: size does not match the text")
        dates.append(_field(line, "date", str))
        messages.append((kind, text))
    return dates, messages


def _saved(planner: Planner) -> dict[str, Any]:
    return {
        "t": planner.count,
        "view": [list(n) for n in planner.chat.order],
        "shrinking": planner.chat.shrinking,
        "compaction": [list(n) for n in planner.cview.order],
        "compaction_shrinking": planner.cview.shrinking,
    }


Batch = tuple[tuple[Node, ...], bool] | None
"""A batch of one view: the parents it made and its shrinking flag; None
when no batch ran."""


def _expected_batches(p: Planner) -> dict[str, Batch]:
    """The batches the planner's constants make after the message just
    admitted (SPEC 3.3, 3.4), worked out on copies of the views."""
    c = p.constants
    chat = p.chat.copy()
    ran = chat.receive(c.ceiling, c.floor)
    expected: dict[str, Batch] = {"chat": (chat.merges, chat.shrinking) if ran else None}
    if chat.merges:
        cview = chat.copy()
        cview.batch(c.cfloor)
        ran = True
    else:
        cview = p.cview.copy()
        ran = cview.receive(c.cceiling, c.cfloor)
    expected["compaction"] = (cview.merges, cview.shrinking) if ran else None
    return expected


def _batch_words(batch: Batch) -> str:
    if batch is None:
        return "no batch"
    merges, shrinking = batch
    made = ", ".join(map(name, merges)) or "nothing"
    return f"a batch merging {made}{', still shrinking' if shrinking else ''}"


class _Fold:
    """Replays the tree log over the messages (see the module doc). With
    `checking` (the tree folder of a chat without constants.json), the
    planner's constants are checked against the logged batches and nodes."""

    def __init__(
        self,
        planner: Planner,
        messages: list[tuple[str, str]],
        saved: dict[str, Any] | None,
        checking: Path | None = None,
    ) -> None:
        self.planner = planner
        self.messages = messages
        self.saved = saved
        self.checked = saved is None
        self.unlogged: list[Node] = []
        self.batches: list[str] = []
        self.other = False
        self.checking = checking
        self.expected: dict[str, Batch] = {}

    def _contradiction(self, where: str, which: str, logged: Batch) -> StoreError:
        c = self.planner.constants
        names = "ceiling, floor" if which == "chat" else "cceiling, cfloor"
        values = (c.ceiling, c.floor) if which == "chat" else (c.cceiling, c.cfloor)
        return StoreError(
            f"{where}: no constants.json (a chat made before constants were stored), and the "
            f"log contradicts the constants given: under {names} = {values[0]}, {values[1]} "
            f"the {which} view at T={self.planner.count} makes "
            f"{_batch_words(self.expected[which])}, the log holds {_batch_words(logged)}; "
            "open the chat with the constants it was made with"
        )

    def _check_missing(self) -> None:
        """The message's batches are all logged by now: none that the
        constants make may be missing."""
        if self.checking is None:
            return
        for which in ("chat", "compaction"):
            if which not in self.batches and self.expected.get(which) is not None:
                raise self._contradiction(str(self.checking), which, None)
        self.expected = {}

    def _compare_saved(self) -> None:
        """Compare view.json when the fold stands at its T (SPEC 6)."""
        if not self.checked and self.saved is not None and self.saved["t"] == self.planner.count:
            self.checked = True
            if _saved(self.planner) != self.saved:
                raise StoreError(
                    f"view.json:1: the saved view at T={self.planner.count} does not match "
                    "the view folded from the logs"
                )

    def _admit(self) -> None:
        self._compare_saved()
        self._check_missing()
        kind, text = self.messages[self.planner.count]
        self.unlogged = self.planner.admit(kind, text)
        self.batches, self.other = [], False
        if self.checking is not None:
            self.expected = _expected_batches(self.planner)

    def record(self, line: Line) -> None:
        p = self.planner
        t = _field(line, "t", int)
        if t < p.count or t > len(self.messages):
            raise StoreError(
                f"{line.where()}: record at T={t} out of order (T is {p.count} here, "
                f"{len(self.messages)} messages logged)"
            )
        while p.count < t:
            self._admit()
        try:
            if "batch" in line.record:
                self._batch(line)
            elif "fail" in line.record:
                self._check_missing()
                p.fold_failure(_node(line, line.record["fail"]))
                self.other = True
            else:
                self._node(line)
        except ValueError as error:
            raise StoreError(f"{line.where()}: {error}") from None

    def _batch(self, line: Line) -> None:
        which = line.record["batch"]
        # Under `batches: builds` (SPEC 10) an end that built its node runs
        # batches of its own, after the node's records.
        at_build = self.other and self.planner.profile.batches == "builds"
        if at_build and which == "chat":
            self.batches = []
        if (
            which not in ("chat", "compaction")
            or which in self.batches
            or (which == "chat" and self.batches)
            or (self.other and not at_build)
        ):
            raise StoreError(
                f"{line.where()}: unexpected {which!r} batch at T={self.planner.count}"
            )
        merges = line.record.get("merges")
        if not isinstance(merges, list):
            raise StoreError(f"{line.where()}: batch without a merges list")
        nodes = [_node(line, m) for m in merges]
        shrinking = line.record.get("shrinking") is True
        if self.checking is not None and not at_build:
            if which == "compaction" and not self.batches and self.expected.get("chat"):
                raise self._contradiction(line.where(), "chat", None)
            if self.expected.get(which) != (tuple(nodes), shrinking):
                raise self._contradiction(line.where(), which, (tuple(nodes), shrinking))
        self.planner.fold_batch(which == "compaction", nodes, shrinking)
        self.batches.append(which)

    def _node(self, line: Line) -> None:
        node = (_field(line, "l", int), _field(line, "i", int))
        text = _field(line, "text", str)
        if _field(line, "size", int) != size(text):
            raise StoreError(f"{line.where()}: size does not match the text")
        if self.checking is not None and size(text) > self.planner.constants.node:
            raise StoreError(
                f"{line.where()}: no constants.json (a chat made before constants were "
                f"stored), and node {name(node)} holds {size(text)} bytes, more than the "
                f"node = {self.planner.constants.node} given; open the chat with the "
                "constants it was made with"
            )
        if node in self.unlogged:
            self.unlogged.remove(node)
            self.planner.fold_build(node, text)
        elif self.planner.tree.is_built(node):
            raise StoreError(f"{line.where()}: node {node} is logged twice")
        else:
            self._check_missing()
            self.other = True
            self.unlogged += self.planner.fold_build(node, text)[1:]

    def finish(self) -> list[dict[str, Any]]:
        """Admit the messages no tree record follows, complete an interrupted
        last message, build over-failed nodes, and check view.json; returns
        the tree records that the completion and the builds need."""
        p = self.planner
        while p.count < len(self.messages):
            self._admit()
        repairs = node_records(p, self.unlogged)
        if not self.other and p.count:
            if "chat" not in self.batches and p.chat_batch():
                repairs.append(batch_record(p, compaction=False))
            if "compaction" not in self.batches and p.cview_batch():
                repairs.append(batch_record(p, compaction=True))
        for node in p.overdue_failures():
            repairs += node_records(p, p.build_from_source(node))
        self._compare_saved()
        if not self.checked:
            raise StoreError(
                f"view.json:1: saved at T={self.saved['t'] if self.saved else '?'}, "
                f"but the logs hold {p.count} messages"
            )
        return repairs
