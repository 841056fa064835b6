"""A chat directory on disk (SPEC 6): the logs, the saved view, the lock,
and loading a planner back from them.

Layout of a chat directory:

- `main/YYYY-MM-DD.jsonl`: one message per line, `{i, kind, text, size, date}`.
- `tree/YYYY-MM-DD.jsonl`, in the order things happened:
  `{l, i, text, size, t}` a built node; `{batch, merges, shrinking, t}` a
  batch of the chat view (`batch: "chat"`) or of the compaction view
  (`batch: "compaction"`), logged whenever one runs, also when it merges
  nothing; `{fail: [l, i], t}` a failed call. `t` is T when it was written.
- `view.json`: `{t, view, shrinking, compaction, compaction_shrinking}`,
  written to a temporary file and renamed after every message.
- `lock`: the owner's pid, held with `flock` while the chat is open and
  emptied at close. The kernel drops the `flock` of a dead process, so a
  lock left by a crash is taken over (with a warning naming the old pid).

Each record is one `write` followed by `fsync`; nothing is edited or
deleted. A torn last line (a crash in the middle of a write) is skipped with
a warning and terminated by a newline and a `{"torn": n}` record naming it,
so later loads skip it too.

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
then completed by the same rules and logged. The fold is then checked
against `view.json`, which may lag one message behind (a crash before the
rename) and is otherwise an exact match or an error.
"""

from __future__ import annotations

import fcntl
import json
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from impl.constants import Constants
from impl.errors import Locked, Refused, StoreError
from impl.planner import Planner, check_message
from impl.text import size
from impl.tree import Node

Clock = Callable[[], datetime]
"""The time now, timezone-aware; injected so tests choose the dates."""


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


def _append(path: Path, data: bytes) -> None:
    """One write followed by fsync (SPEC 6)."""
    _write(path, data, os.O_APPEND)


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write `data` to `path` (opened with `mode`: append or truncate) and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _encode(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def read_log(folder: Path) -> Iterator[Line]:
    """The records of a day-split log, oldest file first. A torn last line is
    terminated and marked (see the module doc); any other line that is not
    a JSON object is a StoreError naming file and line."""
    for path in sorted(folder.glob("*.jsonl")):
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            torn = data.count(b"\n") + 1
            warnings.warn(f"{path}:{torn}: torn last line skipped and terminated", stacklevel=2)
            _append(path, b"\n" + _encode({"torn": torn}))
            data = path.read_bytes()
        rows = data.split(b"\n")[:-1]
        marked = {_torn_mark(row) for row in rows if row.startswith(b'{"torn"')}
        for number, raw in enumerate(rows, start=1):
            if number in marked or (raw.startswith(b'{"torn"') and _torn_mark(raw)):
                continue
            try:
                record = json.loads(raw)
            except ValueError:
                record = None
            if not isinstance(record, dict):
                raise StoreError(f"{path}:{number}: not a JSON object: {raw[:80]!r}")
            yield Line(path, number, record)


def _torn_mark(raw: bytes) -> int | None:
    """The line number a `{"torn": n}` record marks, or None."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if isinstance(record, dict) and set(record) == {"torn"} and isinstance(record["torn"], int):
        return record["torn"]
    return None


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


class Store:
    """An open chat directory, owned by this process (SPEC 6)."""

    def __init__(self, path: Path | str, clock: Clock = local_now) -> None:
        self.path = Path(path)
        self.clock = clock
        (self.path / "main").mkdir(parents=True, exist_ok=True)
        (self.path / "tree").mkdir(exist_ok=True)
        self._lock = self._take_lock()
        self._newest = {
            folder: max((p.name for p in (self.path / folder).glob("*.jsonl")), default="")
            for folder in ("main", "tree")
        }

    def _take_lock(self) -> int:
        """Own the directory: `flock` on `lock` holding our pid. A live owner
        refuses us; a lock left by a dead process is taken over."""
        lock = self.path / "lock"
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise Locked(
                f"{lock}: the chat is open in another live process (pid {owner})"
            ) from None
        old = os.pread(fd, 64, 0).decode(errors="replace").strip()
        if old and old != str(os.getpid()):
            warnings.warn(
                f"{lock}: took over the lock of process {old}, which is gone", stacklevel=3
            )
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        os.fsync(fd)
        return fd

    def close(self) -> None:
        """Release the lock, emptying it: a pid left in it names an owner that died."""
        if self._lock >= 0:
            os.ftruncate(self._lock, 0)
            os.close(self._lock)
            self._lock = -1

    def _day(self, folder: str) -> Path:
        """Today's file, or the newest file if the clock went back (a
        timezone change): logs are read in file-name order, which must stay
        the order of writing."""
        today = f"{self.clock().strftime('%Y-%m-%d')}.jsonl"
        self._newest[folder] = max(today, self._newest[folder])
        return self.path / folder / self._newest[folder]

    def log_message(self, i: int, kind: str, text: str) -> str:
        """Log message i; returns its date (SPEC 6)."""
        date = self.clock().isoformat(timespec="seconds")
        record = {"i": i, "kind": kind, "text": text, "size": size(text), "date": date}
        _append(self._day("main"), _encode(record))
        return date

    def log_tree(self, record: dict[str, Any]) -> None:
        """Log one tree record (SPEC 6)."""
        _append(self._day("tree"), _encode(record))

    def log_nodes(self, planner: Planner, nodes: list[Node]) -> None:
        """Log built nodes with their texts (SPEC 6)."""
        for level, index in nodes:
            text = planner.text((level, index))
            assert text is not None
            self.log_tree(
                {"l": level, "i": index, "text": text, "size": size(text), "t": planner.count}
            )

    def log_batch(self, planner: Planner, compaction: bool) -> None:
        """Log the batch that just ran on the chat or compaction view (SPEC 6)."""
        view = planner.cview if compaction else planner.chat
        self.log_tree(
            {
                "batch": "compaction" if compaction else "chat",
                "merges": [list(node) for node in view.merges],
                "shrinking": view.shrinking,
                "t": planner.count,
            }
        )

    def log_failure(self, planner: Planner, node: Node) -> None:
        """Log a failed call, so FAILURES counts across restarts (SPEC 4, 6)."""
        self.log_tree({"fail": list(node), "t": planner.count})

    def save_view(self, planner: Planner) -> None:
        """Write view.json through a temporary file and a rename (SPEC 6)."""
        target = self.path / "view.json"
        temp = self.path / "view.json.tmp"
        data = json.dumps(_saved(planner)).encode()
        _write(temp, data, os.O_TRUNC)
        os.replace(temp, target)
        dirfd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)

    def load(self, constants: Constants) -> tuple[Planner, list[str]]:
        """Fold the logs into a planner and the messages' dates, complete an
        interrupted last message, and check view.json (module doc, SPEC 6)."""
        dates: list[str] = []
        messages: list[tuple[str, str]] = []
        for line in read_log(self.path / "main"):
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
        planner = Planner(constants)
        fold = _Fold(planner, messages, self._saved_view())
        for line in read_log(self.path / "tree"):
            fold.record(line)
        fold.finish(self)
        return planner, dates

    def _saved_view(self) -> dict[str, Any] | None:
        path = self.path / "view.json"
        try:
            saved = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except ValueError as error:
            raise StoreError(f"{path}:1: not JSON: {error}") from None
        if not isinstance(saved, dict) or not isinstance(saved.get("t"), int):
            raise StoreError(f"{path}:1: not a saved view")
        return saved


def _saved(planner: Planner) -> dict[str, Any]:
    return {
        "t": planner.count,
        "view": [list(n) for n in planner.chat.order],
        "shrinking": planner.chat.shrinking,
        "compaction": [list(n) for n in planner.cview.order],
        "compaction_shrinking": planner.cview.shrinking,
    }


class _Fold:
    """Replays the tree log over the messages (see the module doc)."""

    def __init__(
        self, planner: Planner, messages: list[tuple[str, str]], saved: dict[str, Any] | None
    ) -> None:
        self.planner = planner
        self.messages = messages
        self.saved = saved
        self.checked = saved is None
        self.unlogged: list[Node] = []
        self.batches: list[str] = []
        self.other = False

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
        kind, text = self.messages[self.planner.count]
        self.unlogged = self.planner.admit(kind, text)
        self.batches, self.other = [], False

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
                p.fold_failure(_node(line, line.record["fail"]))
                self.other = True
            else:
                self._node(line)
        except ValueError as error:
            raise StoreError(f"{line.where()}: {error}") from None

    def _batch(self, line: Line) -> None:
        which = line.record["batch"]
        if (
            which not in ("chat", "compaction")
            or which in self.batches
            or (which == "chat" and self.batches)
            or self.other
        ):
            raise StoreError(
                f"{line.where()}: unexpected {which!r} batch at T={self.planner.count}"
            )
        merges = line.record.get("merges")
        if not isinstance(merges, list):
            raise StoreError(f"{line.where()}: batch without a merges list")
        nodes = [_node(line, m) for m in merges]
        self.planner.fold_batch(which == "compaction", nodes, line.record.get("shrinking") is True)
        self.batches.append(which)

    def _node(self, line: Line) -> None:
        node = (_field(line, "l", int), _field(line, "i", int))
        text = _field(line, "text", str)
        if _field(line, "size", int) != size(text):
            raise StoreError(f"{line.where()}: size does not match the text")
        if node in self.unlogged:
            self.unlogged.remove(node)
            self.planner.fold_build(node, text)
        elif self.planner.tree.is_built(node):
            raise StoreError(f"{line.where()}: node {node} is logged twice")
        else:
            self.other = True
            self.unlogged += self.planner.fold_build(node, text)[1:]

    def finish(self, store: Store) -> None:
        """Admit the messages no tree record follows, complete an interrupted
        last message, build over-failed nodes, and check view.json."""
        p = self.planner
        while p.count < len(self.messages):
            self._admit()
        if self.unlogged:
            store.log_nodes(p, self.unlogged)
        if not self.other and p.count:
            if "chat" not in self.batches and p.chat_batch():
                store.log_batch(p, compaction=False)
            if "compaction" not in self.batches and p.cview_batch():
                store.log_batch(p, compaction=True)
        for node in p.overdue_failures():
            store.log_nodes(p, p.build_from_source(node))
        self._compare_saved()
        if not self.checked:
            raise StoreError(
                f"view.json:1: saved at T={self.saved['t'] if self.saved else '?'}, "
                f"but the logs hold {p.count} messages"
            )
        store.save_view(p)
