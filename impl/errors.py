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
    """A chat directory that cannot be loaded as it is (SPEC 6): the message
    names the file, the line and the problem. Nothing is changed on disk."""


class Locked(StoreError):
    """Another live process owns the chat directory (SPEC 6)."""
