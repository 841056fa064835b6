"""A pytest plugin for the gate's unit stage (`-p tests.progress`): how many
tests are done of how many, written whole to the file the environment
variable PROGRESS names after every test, so that the gate's line every
10 s says how far the stage is (tests/gate.py). pytest-xdist's own output
says nothing a line can show until a whole line of dots is done. In the
controlling process only: with pytest-xdist, the workers' reports arrive
there, and the total is what the first worker collected."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

PROGRESS = "OPTCHAT_GATE_PROGRESS"
"""The variable naming the file; without it the plugin does nothing."""


class Progress:
    """The counts of one session, and the file they are written to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.total: int | None = None
        self.done = 0
        self.failed: set[str] = set()
        self.workers = 0

    def said(self) -> str:
        if self.total is None:
            return f"collecting the tests ({self.workers} workers have)"
        failed = f", {len(self.failed)} failed" if self.failed else ""
        return f"{self.done} of {self.total} tests done{failed}"

    def write(self) -> None:
        aside = self.path.with_name(self.path.name + ".new")
        aside.write_text(self.said() + "\n", encoding="utf-8")
        os.replace(aside, self.path)

    def pytest_sessionstart(self) -> None:
        self.write()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)
        self.write()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.workers += 1
        if self.total is None:
            self.total = len(ids)
        self.write()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.add(report.nodeid)
        if report.when == "teardown":
            self.done += 1
            self.write()


def pytest_configure(config: pytest.Config) -> None:
    named = os.environ.get(PROGRESS)
    if named and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Progress(Path(named)), "optchat-progress")
