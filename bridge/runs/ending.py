"""How a run ends on a signal: which signals end it as Ctrl-C does, each
handled once, and the one helper process of Python's that must outlive a
hangup of the run's process group (bridge/cli/__init__.py for the run,
bridge/runs/corpus.py for its pool workers)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from multiprocessing import resource_tracker
from typing import Any

ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""The signals that end a run as Ctrl-C does, its engines ended and what it
printed kept: SIGTERM (CI, `kill`), SIGHUP (a closed terminal, a dropped
ssh session) and SIGQUIT. One ignored when the run starts (`nohup`) stays
ignored."""


def on_ending(handler: Callable[[int, Any], Any]) -> dict[int, Any]:
    """`handler` for each of ENDING not ignored; the handlers it replaced
    (`signal.signal` each back to restore them)."""
    return {
        each: signal.signal(each, handler)
        for each in ENDING
        if signal.getsignal(each) != signal.SIG_IGN
    }


def ignore_ending() -> None:
    """ENDING ignored from now on: a run ends once, and a second signal (a
    shell passing on the hangup the kernel sent it, `kill` again) would cut
    the ending of its engines short. A handler that does nothing, not
    SIG_IGN: a signal already caught would then be Python's OSError."""
    for each in ENDING:
        signal.signal(each, _once_is_enough)


def _once_is_enough(_signum: int, _frame: object) -> None:
    pass


def tracker_started() -> None:
    """multiprocessing's resource tracker, which a pool's locks register
    with, started (unless it runs) with SIGHUP and SIGQUIT blocked: Python
    shields it from Ctrl-C and SIGTERM only, and a terminal's hangup reaches
    the run's whole process group. Killed, it is started again with a
    warning, then tracebacks on stderr as the pool's locks go."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP, signal.SIGQUIT})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
