"""`python -m bench.failing [--quick]`: a failing engine against a passing
one over the same corpus (issue 24: no slower). Both are the engine of
`impl/` as plain Python through the line protocol: passing, `python -m
impl.protocol`; failing, the same with one planted break
(tests/bridge/engines/shrinking_dropped.py: the shrinking flag not carried),
which fails the scenarios whose views shrink. The failing engine runs
twice, the second time with `--report` (an HTML page per failure, with both
states there). Prints one JSON object: each run's wall and CPU seconds (the
run and its processes), exit code and FAIL count."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "tests" / "bridge" / "engines" / "shrinking_dropped.py"
QUICK = ("random_0*",)
"""The scenarios of a `--quick` run (else the whole corpus)."""


def timed(args: list[str]) -> dict[str, float]:
    """One `bridge corpus` run to its end: wall and CPU seconds (children's),
    exit code and how many scenarios it failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "corpus", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OPTCHAT_PURE": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    fails = len(re.findall(r"^\[\d+/\d+\] FAIL ", done.stdout, re.M))
    return {"wall": round(wall, 2), "cpu": round(cpu, 2), "exit": done.returncode, "fails": fails}


def main(argv: list[str]) -> None:
    only = [a for glob in QUICK for a in ("--only", glob)] if "--quick" in argv else []
    common = ["--jobs", "2", *only]
    passing = timed(["--engine", f"{sys.executable} -m impl.protocol", *common])
    failing_engine = ["--engine", f"{sys.executable} {FAILING}", *common]
    failing = timed(failing_engine)
    with tempfile.TemporaryDirectory(prefix="optchat-failing-") as report:
        reported = timed([*failing_engine, "--report", report])
    print(json.dumps({"passing": passing, "failing": failing, "failing_report": reported}))


if __name__ == "__main__":
    main(sys.argv[1:])
