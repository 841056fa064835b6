"""Progress of a long run on stderr, so that a replay stuck in one long event
still shows itself alive."""

from __future__ import annotations

import sys
import threading
import time


class Heartbeat:
    """Progress of one replay on stderr every 10 s: a timer thread reads the
    count of answers the replay reports (of `total`, when it is known before
    the replay), so a single long event (a model batch over a huge view)
    still shows the replay alive. Use it in `with`."""

    def __init__(self, name: str, total: int | None, quiet: bool, every: float = 10.0) -> None:
        self.name, self.total, self.quiet, self.every = name, total, quiet, every
        self.done = 0
        self.began = time.monotonic()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def __call__(self, done: int) -> None:
        self.done = done

    def __enter__(self) -> Heartbeat:
        if not self.quiet:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()

    def _beat(self) -> None:
        of = "" if self.total is None else f"/{self.total}"
        while not self.stopped.wait(self.every):
            print(
                f"  ... {self.name}: {self.done}{of} answers "
                f"({time.monotonic() - self.began:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
