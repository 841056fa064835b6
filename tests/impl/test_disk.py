"""Full disks, closed chats and read-only directories (SPEC 6): a write is
whole or detected, a chat that was closed or whose write failed refuses
every call, and the directory opens again to its last acknowledged state."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from impl.chat import Chat
from impl.errors import Closed, Locked, ReadOnly, StoreError, WriteFailed
from tests.impl.crash_child import text_of
from tests.impl.helpers import (
    SMALL,
    SMALL_MODEL,
    FullDisk,
    drive,
    files,
    leave_room,
    mount_tmpfs,
    reopen,
    unmount,
)
from tests.impl.replay import as_pairs, model_state

CALLS: dict[str, tuple[object, ...]] = {
    "append": ("user", "more"),
    "render": (),
    "view": (),
    "compaction_view": (),
    "context": (0, 0),
    "source": (0, 0),
    "zoom": (0, 1),
    "date": (0,),
    "candidates": (),
    "running": (),
    "claim": (0, 0),
    "put": (0, 0, "line"),
    "fail": (0, 0),
    "retry": (),
    "subscribe": (print,),
    "wait_settled": (0.01,),
}
"""Every public call of a Chat but open, close and unsubscribe, with arguments."""

CHANGES = ("append", "claim", "put", "fail", "retry", "wait_settled")
"""The calls that change a chat."""


def call(chat: Chat, name: str) -> object:
    result = getattr(chat, name)(*CALLS[name])
    return asyncio.run(result) if asyncio.iscoroutine(result) else result


def write_until_full(chat: Chat, rng: random.Random) -> list[int]:
    """Append message T with `text_of(T)` and build some calls until a
    write fails; returns the ids `append` acknowledged."""
    acked: list[int] = []
    with pytest.raises(WriteFailed, match="No space left on device"):
        while True:
            acked += chat.append("user", text_of(chat.planner.count))
            for node in chat.candidates()[: rng.randrange(3)]:
                chat.claim(*node)
                chat.put(*node, f"line {node}")
    return acked


def refuses_after_failure(chat: Chat) -> None:
    for name in ("append", "view", "put"):
        with pytest.raises(Closed, match="a write failed .*No space left on device"):
            call(chat, name)


def reopens_with(path: Path, acked: list[int]) -> int:
    """Open the chat; every acknowledged message is there, and the view is
    the model's for the logged history. Returns T."""
    with reopen(path) as chat:
        for i in acked:
            assert chat.zoom(i, 1) == "user: " + text_of(i)
        assert chat.view() == as_pairs(model_state(path, SMALL_MODEL).chat.view)
        return chat.planner.count


def open_while_full(path: Path) -> bool:
    """Try to open the chat on a full disk: either it needs no write, or it
    is a StoreError naming the full disk; the directory is left as it was.
    Whether it was refused."""
    before = files(path)
    try:
        Chat.open(path, SMALL).close()
    except StoreError as error:
        assert "No space left on device" in str(error)
        refused = True
    else:
        refused = False
    assert files(path) == before
    return refused


@pytest.mark.filterwarnings("ignore:.*torn line skipped")
def test_a_simulated_full_disk_loses_no_acknowledged_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = FullDisk()
    monkeypatch.setattr(os, "write", disk)
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # speed only: writes fail, not flushes
    rng = random.Random(15)
    acked: list[int] = []
    refused = 0
    for _ in range(25):
        assert reopens_with(tmp_path, acked) >= len(acked)
        with reopen(tmp_path) as chat:
            disk.room = rng.randrange(1, 3000)
            acked += write_until_full(chat, rng)
            refuses_after_failure(chat)
        disk.room = 0
        refused += open_while_full(tmp_path)
        disk.room = None
    assert reopens_with(tmp_path, acked) >= len(acked) > 25
    assert refused > 10
    disk.room = 0
    with pytest.raises(
        WriteFailed, match="constants.json: cannot be written: No space left on device"
    ):
        Chat.open(tmp_path / "new", SMALL)


def test_a_write_that_makes_no_progress_fails_instead_of_spinning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with reopen(tmp_path) as chat:
        monkeypatch.setattr(os, "write", lambda fd, data: 0)
        with pytest.raises(
            WriteFailed, match="main/.*: cannot be written: the write made no progress"
        ):
            chat.append("user", "hello")


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, mounted for the test."""
    mount = tmp_path / "tmpfs"
    why = mount_tmpfs(mount, 1 << 20)
    if why is not None:
        pytest.skip(f"cannot mount a tmpfs to fill ({why}); the simulated full disk still runs")
    try:
        yield mount
    finally:
        unmount(mount)


@pytest.mark.filterwarnings("ignore:.*torn line skipped")
def test_a_full_tmpfs_loses_no_acknowledged_message(tmpfs: Path) -> None:
    path = tmpfs / "chat"
    rng = random.Random(16)
    acked: list[int] = []
    for _ in range(4):
        assert reopens_with(path, acked) >= len(acked)
        with reopen(path) as chat:
            ballast = leave_room(tmpfs, rng.randrange(4096, 20_000))
            acked += write_until_full(chat, rng)
            refuses_after_failure(chat)
        open_while_full(path)
        ballast.unlink()
    assert reopens_with(path, acked) >= len(acked)


def test_a_closed_chat_refuses_every_call_and_writes_nothing(tmp_path: Path) -> None:
    public = {name for name in dir(Chat) if not name.startswith("_")}
    assert public == set(CALLS) | {"open", "close", "unsubscribe"}
    chat = reopen(tmp_path)
    chat.append("user", "x" * 100)
    chat.close()
    before = files(tmp_path)
    for name in CALLS:
        with pytest.raises(Closed, match=f"{tmp_path}: this chat is closed"):
            call(chat, name)
    with pytest.raises(Closed), chat:
        pass
    chat.close()
    assert files(tmp_path) == before


@pytest.mark.filterwarnings("ignore:.*torn line skipped")
def test_read_only_reads_what_a_writer_would_and_writes_nothing(tmp_path: Path) -> None:
    path, twin = tmp_path / "chat", tmp_path / "twin"
    with reopen(path) as chat:
        drive(chat, 30, seed=6)
    with open(next((path / "main").glob("*.jsonl")), "ab") as day:
        day.write(b'{"i": 30, "kind": "us')
    (path / "view.json").unlink()  # a writer would write it again
    shutil.copytree(path, twin)
    with reopen(twin) as writer:
        expected = (writer.render(), writer.compaction_view(), writer.zoom(0, 1), writer.date(29))
    before = files(path)
    with Chat.open(path, SMALL, read_only=True) as chat:
        assert (chat.render(), chat.compaction_view(), chat.zoom(0, 1), chat.date(29)) == expected
        for name in CHANGES:
            with pytest.raises(ReadOnly, match="opened with read_only=True"):
                call(chat, name)
        with Chat.open(path, read_only=True) as other:  # readers share the directory
            assert other.render() == expected[0]
        with pytest.raises(Locked):
            reopen(path)
    assert files(path) == before
    with reopen(path), pytest.raises(Locked):
        Chat.open(path, read_only=True)


def test_a_read_only_directory_is_refused_for_writing_and_opens_for_reading(
    tmpfs: Path,
) -> None:
    path = tmpfs / "chat"
    with reopen(path) as chat:
        chat.append("user", "hello")
    (path / "lock").unlink()  # as in a copy: a reader then needs no lock
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with pytest.raises(StoreError, match=f"{path}/lock: .*Read-only file system.*read_only=True"):
        reopen(path)
    with Chat.open(path, read_only=True) as chat:
        assert chat.zoom(0, 1) == "user: hello"
