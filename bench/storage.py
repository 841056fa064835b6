"""`python -m bench.storage`: appends per second with fsync on this disk, and
the load time of a chat directory of 10^5 messages whose calls were all
answered (a compactor never late), printed as JSON.

The 10^5-message directory is written by the real code with `os.fsync`
replaced by a no-op (setup only: the files are the same, the disk is spared
a hundred thousand flushes); the appends and the load are measured as they run."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from bench.workload import line_for, messages
from impl.chat import Chat
from scenarios.arguments import positive_int


def fill(chat: Chat, count: int, seed: int) -> None:
    """Append `count` messages, every call claimed and put at once."""
    for kind, text in messages(count, seed=seed):
        chat.append(kind, text)
        while calls := chat.candidates():
            for level, index in calls:
                chat.claim(level, index)
            for level, index in calls:
                chat.put(level, index, line_for(level, index))


def appends_per_second(folder: Path, count: int) -> float:
    with Chat.open(folder) as chat:
        began = time.perf_counter()
        for kind, text in messages(count, seed=3):
            chat.append(kind, text)
        return count / (time.perf_counter() - began)


def load_seconds(folder: Path, count: int) -> float:
    real_fsync = os.fsync
    os.fsync = lambda fd: None  # setup only, see the module docstring
    try:
        with Chat.open(folder) as chat:
            fill(chat, count, seed=4)
    finally:
        os.fsync = real_fsync
    began = time.perf_counter()
    with Chat.open(folder):
        return time.perf_counter() - began


def main(argv: list[str] | None = None) -> None:
    """Measure appends per second and the load of COUNT messages; print them."""
    parser = argparse.ArgumentParser(prog="python -m bench.storage", description=__doc__)
    parser.add_argument(
        "count", type=positive_int, nargs="?", default=100_000, metavar="COUNT", help="(100000)"
    )
    count = parser.parse_args(argv).count
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        rate = appends_per_second(Path(one), 1_000)
        load = load_seconds(Path(two), count)
    print(json.dumps({"appends_per_second": rate, "load_seconds": load, "messages": count}))


if __name__ == "__main__":
    main()
