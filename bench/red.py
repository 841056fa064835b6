"""A red run timed (issue 40, "red as fast as green"): `bridge corpus` on an
example engine with several planted bugs (tests/bridge/engines/planted.py's,
run by sessionless.py), which declares no sessions, so that every replay,
and every try of every shrink, starts a fresh `python3` as an engine
author's first adapter does. Its output is read as it comes and passed on
to stderr (the run's progress); each phase is timed by the line that ends
it: the replay by the last scenario's line (`[N/N] ...`), the verdict by
the line that says the FAILs' causes (`45 FAIL from 3 causes`), the run by
its exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLANTS = ("free_leaf", "late_cap", "zoom")
"""planted.py's plants the engine has."""

QUICK = ("random_0*",)
"""The scenarios of a `--quick` run (else the whole corpus)."""

VERDICT = re.compile(r"(\d+) FAIL from (\d+) causes?\b")


@dataclass
class Red:
    """What the red run took, in seconds from its start (None: never seen)."""

    replay: float | None
    verdict: float | None
    end: float
    fails: int
    causes: int
    code: int


def command(quick: bool) -> list[str]:
    """The run: the whole corpus (QUICK's scenarios with `quick`), two jobs,
    shrinking as `corpus` does unless told otherwise."""
    engine = " ".join([sys.executable, "tests/bridge/engines/sessionless.py", *PLANTS])
    only = [arg for glob in QUICK for arg in ("--only", glob)] if quick else []
    return ["-m", "bridge", "corpus", "--engine", engine, "--jobs", "2", *only]


def red_run(quick: bool) -> Red:
    """Run `command`, its output passed on to stderr as it comes, and time it."""
    replay = verdict = None
    fails = causes = 0
    with tempfile.TemporaryDirectory(prefix="optchat-red-") as folder:
        began = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, *command(quick), "--regressions", folder],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            now = time.perf_counter() - began
            sys.stderr.write(line)
            sys.stderr.flush()
            done = re.match(r"\[(\d+)/(\d+)\] ", line)
            if done and done[1] == done[2]:
                replay = now
            said = VERDICT.match(line)
            if said and verdict is None:
                verdict, fails, causes = now, int(said[1]), int(said[2])
        code = process.wait()
        end = time.perf_counter() - began
    return Red(replay, verdict, end, fails, causes, code)
