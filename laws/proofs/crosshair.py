"""Running CrossHair on a file of PEP 316 contracts (SPEC 8: bits_agree, and
the due order's link to the model).

CrossHair's own budgets are CPU seconds of its process (the pinned
crosshair-tool 0.0.113 measures `--per_condition_timeout` and
`--per_path_timeout` with `time.process_time`) or iterations
(`--max_uninteresting_iterations`), so a loaded machine explores as far as
a quiet one. (Inside, each of its solver calls gets a wall-clock time-out
of half the per-path budget, 0.7 s in the CI profile, for queries that take
milliseconds; a call that runs into it abandons that path, and never makes
a counterexample.) Its process runs under a limit of CPU seconds too (RLIMIT_CPU)
and, against a CrossHair that hangs without using any, a wall-clock safety
net WALL_FACTOR times that long. Stopped by either, it has found nothing:
`OutOfBudget`, never a counterexample.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

WALL_FACTOR = 10
"""The wall-clock safety net, in multiples of the CPU limit: a machine would
have to be loaded past ten busy processes per core before CrossHair, using
CPU all along, ran into it."""

LIMITED = (
    "import resource, runpy, sys\n"
    "seconds = int(sys.argv.pop(1))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "sys.argv[0] = 'crosshair'\n"
    "runpy.run_module('crosshair', run_name='__main__', alter_sys=True)\n"
)
"""`python -m crosshair`, under a limit of CPU seconds (the first argument),
past which the kernel stops it (SIGXCPU), leaving no core file."""


@dataclass(frozen=True)
class Verdict:
    """What CrossHair said: the counterexamples it printed (None: none), and
    how many conditions it confirmed over all their paths."""

    counterexamples: str | None
    confirmed: int


class OutOfBudget(Exception):
    """CrossHair was stopped before it finished (its CPU limit, or the
    wall-clock safety net): it found no counterexample, and proved nothing."""


def check(contracts: Path, *options: str, cpu_seconds: int) -> Verdict:
    """`crosshair check --analysis_kind=PEP316 --report_all <options> <contracts>`
    with PYTHONHASHSEED=0 (CrossHair's search depends on hashing order),
    stopped after `cpu_seconds` of CPU (OutOfBudget), or after WALL_FACTOR
    times as many seconds of wall time (OutOfBudget)."""
    command = [
        sys.executable,
        "-c",
        LIMITED,
        str(cpu_seconds),
        "check",
        "--analysis_kind=PEP316",
        "--report_all",
        *options,
        str(contracts),
    ]
    wall = WALL_FACTOR * cpu_seconds
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=wall,
            env=dict(os.environ, PYTHONHASHSEED="0"),
        )
    except subprocess.TimeoutExpired:
        raise OutOfBudget(
            f"CrossHair still ran after {wall} s of wall time (its safety net, "
            f"{WALL_FACTOR} times its {cpu_seconds} CPU seconds): stopped, no counterexample"
        ) from None
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise OutOfBudget(
            f"CrossHair used its {cpu_seconds} CPU seconds before it finished: stopped, "
            "no counterexample"
        )
    confirmed = done.stdout.count("Confirmed over all paths")
    if done.returncode == 0:
        return Verdict(None, confirmed)
    found = [line for line in done.stdout.splitlines() if ": error: " in line]
    return Verdict("\n".join(found) or (done.stdout + done.stderr).strip(), confirmed)
