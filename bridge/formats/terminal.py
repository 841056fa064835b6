"""Text for the terminal: what the runner prints quotes untrusted text (an
engine's answers and stderr, scenario files and their names, --known-failures
names), and a terminal acts on some characters instead of showing them
(escape codes that colour, move, retitle or clear; NUL; a carriage return
that overwrites a line; bidirectional overrides that reorder it) or cannot
take them at all (a lone surrogate). `shown` escapes those; the command
line prints through `Escaped` streams, so nothing printed escapes it (the
HTML, XML and JSON reports escape for where they go)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from typing import TextIO

ACTED_ON = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Every control character but newline and tab (C0, DEL, C1), the
bidirectional marks, embeddings, overrides and isolates, and lone surrogates."""


def shown(text: str) -> str:
    """`text` with each character a terminal would act on (ACTED_ON) as its
    JSON escape (`\\u001b`), so a JSON line printed stays JSON, the same value."""
    return ACTED_ON.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


class Escaped(io.TextIOBase):
    """A text stream that writes to another, each write `shown`."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(shown(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding


ECHOED_MOST = 200
"""The most characters of an untrusted value a line echoes (`cut`)."""


def cut(text: str, most: int = ECHOED_MOST) -> str:
    """`text` cut to `most` characters, saying how long it was, for echoing
    an untrusted value in one line (a 50 MB name is not printed whole)."""
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text):,} characters)"


def standard_streams() -> None:
    """stdin, stdout and stderr each open: one the process was started
    without (`cmd >&-`, as some cron and daemon setups start it; Python
    then has None for it) is opened on the null device, at its own
    descriptor while that is free, so neither a print nor a file opened
    later (which would take the free descriptor) lands where it was."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_RDWR)
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(null, fd)
            os.close(null)
            null = fd
        setattr(sys, name, open(null, mode, encoding="utf-8"))  # noqa: SIM115


@contextlib.contextmanager
def escaped_output() -> Iterator[None]:
    """stdout and stderr `Escaped` for as long as the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Escaped(saved[0]), Escaped(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
