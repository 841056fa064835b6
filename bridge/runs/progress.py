"""Progress of a long run on stderr, so that a replay stuck in one long event
still shows itself alive, and a run of many shows how far it is."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from multiprocessing import get_context
from typing import Any

from bridge.runs.ending import tracker_started

EVERY = 10.0
"""Seconds between two progress lines: every command says something at least this often."""


class Ticker:
    """A line on stderr every `every` seconds (`EVERY`), said by
    `line(elapsed)` at the time, while in `with` (nothing when `quiet`): a
    timer thread, so that work that never returns to its caller for a
    while still shows."""

    def __init__(
        self, line: Callable[[float], str], quiet: bool, every: float | None = None
    ) -> None:
        self.line, self.quiet = line, quiet
        self.every = EVERY if every is None else every
        self.began = time.monotonic()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self) -> Ticker:
        if not self.quiet:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()

    def _beat(self) -> None:
        while not self.stopped.wait(self.every):
            print(self.line(time.monotonic() - self.began), file=sys.stderr, flush=True)


class Heartbeat(Ticker):
    """Progress of one replay on stderr every 10 s: the timer reads the
    count of answers the replay reports (of `total`, when it is known before
    the replay), so a single long event (a model batch over a huge view)
    still shows the replay alive. Use it in `with`."""

    def __init__(
        self, name: str, total: int | None, quiet: bool, every: float | None = None
    ) -> None:
        super().__init__(self._said, quiet, every)
        self.name, self.total = name, total
        self.done = 0

    def __call__(self, done: int) -> None:
        self.done = done

    def _said(self, elapsed: float) -> str:
        of = "" if self.total is None else f"/{self.total}"
        return f"  ... {self.name}: {self.done}{of} answers ({elapsed:.0f} s)"


def estimate(elapsed: float, done: float, total: float) -> str:
    """What is left of work `done` of `total` (in any unit that costs
    alike) after `elapsed` seconds, in words: `about 40 s left`."""
    if done <= 0 or total <= done:
        return "estimate after the first scenario" if done <= 0 else "finishing"
    left = elapsed * (total - done) / done
    return f"about {left:.0f} s left" if left < 120 else f"about {left / 60:.0f} min left"


SHARED: list[Any] = []
"""The run's shared count in this process (`share`), if any."""


def counter() -> Any:
    """A count the run's pool workers add to (given to each as it starts,
    `share`), and this process too when it does the work itself."""
    tracker_started()  # the value's lock registers with it
    value = get_context("spawn").Value("q", 0)
    share(value)
    return value


def share(value: Any) -> None:
    """Make `value` this process's shared count (None: none)."""
    SHARED[:] = [] if value is None else [value]


def count(done: int = 1) -> None:
    """Add to the shared count, if there is one."""
    for value in SHARED:
        with value.get_lock():
            value.value += done
