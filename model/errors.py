"""The refusal of an event that a state does not allow (SPEC 4, 5)."""

from __future__ import annotations


class Refused(Exception):
    """An event broke a rule; `rule` names it (a SPEC 8 law name where one fits)."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail
