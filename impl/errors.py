"""The engine's errors: refused events (SPEC 4, 5) and bad chat directories (SPEC 6)."""

from __future__ import annotations


class Refused(Exception):
    """An event broke a rule; `rule` names it with the reference model's rule
    names (SPEC 4, 5, 8), `detail` says what was wrong."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class StoreError(Exception):
    """A chat directory that cannot be opened or written as it is (SPEC 6):
    the message names the file, the line where there is one, and the
    problem. One raised while opening leaves the directory as it was."""


class Locked(StoreError):
    """Another live process owns the chat directory (SPEC 6)."""


class WriteFailed(StoreError):
    """A write to the chat directory failed (a full disk, an I/O error): the
    record may be half on disk, so the chat refuses every later call until
    it is closed and its directory opened again (SPEC 6)."""


class Closed(StoreError):
    """A call on a chat that is closed, or whose write failed (SPEC 6)."""


class ReadOnly(StoreError):
    """A call that would change a chat opened for reading only (SPEC 6)."""
