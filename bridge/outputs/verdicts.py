"""The colour code every page gives a run's verdict and a scenario's
outcome, the same on the index page (bridge/outputs/index.py) and the
matrix (bridge/outputs/matrix.py): green a run that passed and a scenario
that agreed, red a run that did not (a FAIL, an engine fault, NOTHING
COMPARED, BELOW --min-compared) and a scenario that failed, grey what was
not checked (SKIPPED, an expected failure, a scenario a report lacks)."""

from __future__ import annotations

RED = ("FAIL", "FAULT", "BAD", "ERROR", "UNEXPECTED PASS")
"""The outcomes of a scenario that did not pass (bridge/checking/verdict.py)."""

CSS = (
    ".pass{color:#060;background:#e3f4e3}.fail{color:#a00;background:#fbe3e3}"
    ".verdict{padding:4px 8px;font-weight:bold;border-radius:3px}"
    ".ok{color:#060}.FAIL,.FAULT,.BAD,.ERROR,.UNEXPECTED-PASS{color:#a00;font-weight:bold}"
    "td.FAIL,td.FAULT,td.BAD,td.ERROR,td.UNEXPECTED-PASS{background:#fbe3e3}"
    "td.FAIL a,td.FAULT a,td.BAD a,td.ERROR a,td.UNEXPECTED-PASS a{color:inherit}"
    ".SKIPPED,.expected-failure,.missing{color:#777}"
)


def state(exit_code: int) -> str:
    """A run's verdict as its colour's class: `pass` only for exit 0."""
    return "pass" if exit_code == 0 else "fail"


def kind(status: str) -> str:
    """A scenario's outcome as its colour's class."""
    return status.replace(" ", "-")
