"""The long crash test (SPEC 6), outside `make test`.

A child process opens a chat, runs its compactor (the fake summarizer,
failing one call in seven) and appends message T with `text_of(T)`,
printing `ack T` once `append` returned; now and then a turn waits for the
view to settle. The child is killed with SIGKILL at a random moment; after
every kill the chat is opened again and checked: every acknowledged message
is there, whole, once, in order; the saved `view.json` equals the view
folded from the logs; a copy without `view.json` folds to the same state;
and every few kills, and after the last, the view is the reference model's
for the logged history.

Some rounds run on a full disk: where a tmpfs can be mounted (as root) the
whole run lives on a small one, and those rounds first fill it with a
ballast file, so that the child's writes fail (it then closes the chat and
tries to open it again until there is room); the round frees the space
while the child still runs, or after the kill. Without a tmpfs the child of
such a round gets a simulated `os.write` that runs out of room.

`python -m tests.impl.crash_long --kills 100` prints a line per kill and a
summary; it exits 0 when every check held, 1 when one broke (the chat
directory is then kept and named), 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from impl.chat import Chat
from impl.compactor import Compactor
from impl.constants import Constants
from impl.errors import StoreError
from impl.fake import FakeSummarizer
from tests.impl.crash_child import CONSTANTS, text_of
from tests.impl.helpers import FullDisk, leave_room, mount_tmpfs, unmount
from tests.impl.replay import as_pairs, model_state

TMPFS_BYTES = 256 << 20
LINE_SECONDS = 60.0
"""How long the child may stay silent before it counts as hung."""


class Flaky:
    """The fake summarizer, failing every seventh call (SPEC 4: a failed call)."""

    def __init__(self, node_bytes: int) -> None:
        self.fake = FakeSummarizer(node_bytes)

    async def __call__(self, conversation: list[dict[str, str]]) -> str:
        if self.fake.calls % 7 == 6:
            self.fake.calls += 1
            raise RuntimeError("the model is down")
        return await self.fake(conversation)


async def child(path: Path, seed: int) -> None:
    """The process that is killed: appends, compacts and waits, forever;
    after a failed write, opens the chat again until that succeeds."""
    rng = random.Random(seed)
    constants = Constants(**CONSTANTS)
    while True:
        try:
            chat = Chat.open(path, constants)
        except StoreError as error:
            print(f"refused {error}", flush=True)
            await asyncio.sleep(0.01)
            continue
        compactor = asyncio.create_task(Compactor(chat, Flaky(constants.node)).run())
        try:
            while True:
                t = chat.planner.count
                chat.append("user", text_of(t))
                print(f"ack {t}", flush=True)
                if rng.random() < 0.05:
                    await chat.wait_settled(timeout=1)
                await asyncio.sleep(0)
        except StoreError as error:
            print(f"failed {error}", flush=True)
        finally:
            compactor.cancel()
            await asyncio.gather(compactor, return_exceptions=True)
            chat.close()


class Child:
    """A running child process, its output lines read by a thread."""

    def __init__(self, path: Path, seed: int, budget: int | None, log: Path) -> None:
        command = [sys.executable, "-m", "tests.impl.crash_long", "--child", str(path)]
        command += ["--seed", str(seed)]
        if budget is not None:
            command += ["--budget", str(budget)]
        with open(log, "ab") as stderr:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.acked = 0
        self.failed = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put(raw.decode(errors="replace").rstrip("\n"))
        self.lines.put(None)

    def _take(self, line: str) -> str:
        word, _, rest = line.partition(" ")
        if word == "ack":
            self.acked = max(self.acked, int(rest) + 1)
        elif word == "failed":
            self.failed += 1
        return word

    def until(self, words: set[str], count: int = 1) -> None:
        """Read lines until `count` of them start with one of `words`."""
        seen = 0
        while seen < count:
            line = self.lines.get(timeout=LINE_SECONDS)
            if line is None:
                raise AssertionError(f"the child ended by itself (exit {self.process.wait()})")
            seen += self._take(line) in words

    def kill(self) -> None:
        """SIGKILL, then read what it printed before dying."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._reader.join()
        while (line := self.lines.get()) is not None:
            self._take(line)


@dataclass
class Figures:
    kills: int = 0
    full: int = 0
    freed: int = 0
    restarts: int = 0
    checked: int = 0
    model: int = 0
    failed_writes: int = 0
    began: float = field(default_factory=time.monotonic)


def check(path: Path, acked: int, scratch: Path, with_model: bool, figures: Figures) -> int:
    """Open the chat after a kill and check it (module doc); returns T."""
    try:
        saved = json.loads((path / "view.json").read_bytes())  # as the child left it
    except ValueError as error:
        raise AssertionError(f"view.json is not JSON: {error}") from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torn lines and the dead child's lock
        chat = Chat.open(path, Constants(**CONSTANTS))
    try:
        figures.restarts += 1
        count = chat.planner.count
        assert count >= acked, f"{acked} messages acknowledged, {count} found"
        for i in range(count):
            assert chat.zoom(i, 1) == "user: " + text_of(i), f"message {i} is not its text"
        figures.checked += count
        state = (chat.view(), chat.compaction_view(), chat.planner.shrinking())
        if saved["t"] == count:
            kept = (
                tuple(tuple(n) for n in saved["view"]),
                tuple(tuple(n) for n in saved["compaction"]),
                saved["shrinking"],
            )
            assert kept == state, "view.json is not the view folded from the logs"
        else:
            assert saved["t"] == count - 1, f"view.json at T={saved['t']}, the logs at {count}"
        render = chat.render()
    finally:
        chat.close()
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(path, scratch, ignore=shutil.ignore_patterns("view.json", "lock"))
    with Chat.open(scratch, Constants(**CONSTANTS)) as copy:
        copied = (copy.view(), copy.compaction_view(), copy.planner.shrinking())
        assert copied == state and copy.render() == render, "the fold alone differs"
    if with_model:
        model = model_state(path, CONSTANTS)
        assert state[0] == as_pairs(model.chat.view), "the view is not the model's"
        assert state[1] == as_pairs(model.compaction.view), "the compaction view differs"
        figures.model += 1
    return count


def round_(
    path: Path, disk: Path | None, rng: random.Random, full: bool, log: Path, figures: Figures
) -> tuple[int, str]:
    """One child run and its kill; returns the messages it acknowledged and
    what happened to the disk."""
    ballast = None
    budget = None
    if full and disk is not None:
        ballast = leave_room(disk, rng.randrange(4096, 40_000))
    elif full:
        budget = rng.randrange(500, 20_000)
    child = Child(path, rng.randrange(1 << 30), budget, log)
    disk_note = ""
    try:
        if full:
            child.until({"failed", "refused"})
            figures.full += 1
            disk_note = ", disk full, killed while full"
            if ballast is not None and rng.random() < 0.5:
                ballast.unlink()
                child.until({"ack"}, rng.randrange(1, 30))
                figures.freed += 1
                disk_note = ", disk full, freed while the child ran (it opened the chat again)"
        else:
            child.until({"ack"}, rng.randrange(1, 60))
        time.sleep(rng.random() * 0.02)
    finally:
        child.kill()
        if ballast is not None:
            ballast.unlink(missing_ok=True)
    figures.failed_writes += child.failed
    figures.kills += 1
    return child.acked, disk_note


def run(
    kills: int, seed: int, full_every: int, model_every: int, simulated: bool, work: Path
) -> Figures:
    """The whole test in `work`; AssertionError or StoreError on a broken check."""
    disk: Path | None = None
    why = "--simulated-disk" if simulated else mount_tmpfs(work / "tmpfs", TMPFS_BYTES)
    if why is None:
        disk = work / "tmpfs"
    else:
        print(f"no tmpfs ({why}): full-disk rounds use a simulated os.write", flush=True)
    figures = Figures()
    rng = random.Random(seed)
    path = (disk or work) / "chat"
    try:
        acked = 0
        for kill in range(1, kills + 1):
            full = kill % full_every == 0
            done, disk_note = round_(path, disk, rng, full, work / "child.log", figures)
            acked = max(acked, done)
            with_model = kill % model_every == 0 or kill == kills
            count = check(path, acked, work / "scratch", with_model, figures)
            print(
                f"kill {kill}/{kills}: {acked} acknowledged, T={count}{disk_note}"
                f"{', model agrees' if with_model else ''}, "
                f"{figures.checked:,} message checks so far",
                flush=True,
            )
    except BaseException:
        if disk is not None:
            shutil.copytree(path, work / "chat-kept", dirs_exist_ok=True)
        raise
    finally:
        if disk is not None:
            unmount(disk)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.impl.crash_long",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs (100)")
    parser.add_argument("--seed", type=int, default=20261008, help="the run's seed")
    parser.add_argument(
        "--full-every", type=int, default=12, help="every Nth round on a full disk (12)"
    )
    parser.add_argument(
        "--model-every", type=int, default=25, help="compare with the model every Nth kill (25)"
    )
    parser.add_argument(
        "--simulated-disk",
        action="store_true",
        help="fill a simulated os.write, not a tmpfs, even where one can be mounted",
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--budget", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        if args.budget is not None:
            disk = FullDisk()
            disk.room = args.budget
            os.write = disk  # type: ignore[assignment]
        asyncio.run(child(args.child, args.seed))
        return 0
    for name in ("kills", "full_every", "model_every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="crash_long-"))
    try:
        figures = run(
            args.kills, args.seed, args.full_every, args.model_every, args.simulated_disk, work
        )
    except (AssertionError, StoreError, queue.Empty) as broken:
        problem = str(broken) or "no output from the child"
        print(f"CRASH TEST FAILED: {problem}; chat and child log kept in {work}", flush=True)
        return 1
    seconds = time.monotonic() - figures.began
    print(
        f"CRASH TEST PASSED: {figures.kills} kills ({figures.full} on a full disk, "
        f"{figures.freed} of them freed while the child ran; {figures.failed_writes} failed "
        f"writes seen by the child), {figures.restarts} "
        f"restarts, {figures.checked:,} message checks, {figures.model} model comparisons, "
        f"{seconds:.0f} s"
    )
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
