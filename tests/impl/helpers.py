"""Shared test helpers: small constants, a fixed clock, a scripted history, and
disks that fill up (a simulated `os.write`, a small tmpfs)."""

from __future__ import annotations

import errno
import os
import random
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from impl.chat import Chat
from impl.constants import Constants

SMALL = Constants(node=64, ceiling=600, floor=250, cceiling=300, cfloor=100, jobs=3, ahead=3)
SMALL_MODEL = {
    k: getattr(SMALL, k)
    for k in ("node", "ceiling", "floor", "cceiling", "cfloor", "jobs", "ahead", "failures")
}
"""SMALL for the reference model (tests/impl/replay.py)."""


class Clock:
    """A clock that moves `step` per reading, from 2026-10-08 22:00 UTC."""

    def __init__(self, step: timedelta = timedelta(seconds=1)) -> None:
        self.now = datetime(2026, 10, 8, 22, 0, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def drive(chat: Chat, steps: int, seed: int, build: bool = True) -> None:
    """Append messages of 0..~200 bytes; with `build`, end most candidate calls."""
    rng = random.Random(seed)
    for _ in range(steps):
        chat.append("user", "é" * rng.randrange(100))
        if build:
            for node in chat.candidates():
                chat.claim(*node)
                if rng.random() < 0.8:
                    chat.put(*node, f"{node}" + "s" * rng.randrange(30))


def reopen(path: Path, constants: Constants = SMALL) -> Chat:
    return Chat.open(path, constants, Clock())


def files(path: Path) -> dict[str, bytes]:
    """Every file under `path` but the temporaries (`*.tmp`) with its bytes,
    to show that nothing changed."""
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in path.rglob("*")
        if p.is_file() and p.suffix != ".tmp"
    }


class FullDisk:
    """`os.write` on a disk with `room` bytes left (None: no limit), as the
    kernel does it: a write that does not fit is cut short, the next one
    fails with ENOSPC."""

    def __init__(self) -> None:
        self.room: int | None = None
        self.real = os.write

    def __call__(self, fd: int, data: bytes) -> int:
        if self.room is None:
            return self.real(fd, data)
        if self.room == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = self.real(fd, bytes(data[: self.room]))
        self.room -= written
        return written


def mount_tmpfs(path: Path, size: int) -> str | None:
    """Mount a tmpfs of `size` bytes at `path`; None, or why it could not be."""
    path.mkdir(parents=True, exist_ok=True)
    command = ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        return f"mount: {error}"
    if done.returncode:
        return done.stderr.strip() or f"mount exited with {done.returncode}"
    return None


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], check=True)


def leave_room(mount: Path, room: int) -> Path:
    """Fill the filesystem at `mount` with a ballast file so that about
    `room` bytes stay free; deleting the ballast frees the space again."""
    ballast = mount / "ballast"
    ballast.unlink(missing_ok=True)
    stats = os.statvfs(mount)
    fill = stats.f_bavail * stats.f_frsize - room
    if fill > 0:
        fd = os.open(ballast, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.posix_fallocate(fd, 0, fill)
        finally:
            os.close(fd)
    return ballast
