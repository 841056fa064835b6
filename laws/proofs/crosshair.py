"""Running CrossHair on a file of PEP 316 contracts (SPEC 8: bits_agree, and
the due order's link to the model)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Verdict:
    """What CrossHair said: the counterexamples it printed (None: none), and
    how many conditions it confirmed over all their paths."""

    counterexamples: str | None
    confirmed: int


def check(contracts: Path, *options: str, timeout: float) -> Verdict:
    """`crosshair check --analysis_kind=PEP316 --report_all <options> <contracts>`
    with PYTHONHASHSEED=0 (CrossHair's search depends on hashing order),
    stopped after `timeout` seconds."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            "--analysis_kind=PEP316",
            "--report_all",
            *options,
            str(contracts),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, PYTHONHASHSEED="0"),
    )
    confirmed = done.stdout.count("Confirmed over all paths")
    if done.returncode == 0:
        return Verdict(None, confirmed)
    found = [line for line in done.stdout.splitlines() if ": error: " in line]
    return Verdict("\n".join(found) or (done.stdout + done.stderr).strip(), confirmed)
