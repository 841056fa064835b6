"""`laws` cut short while its CrossHair law runs (issue 42, item 5) leaves
no `crosshair check` behind; it ran on under PID 1 until its own CPU limit.
SIGTERM is sent to the run alone, CrossHair's parent's parent, so only the
run can end it. (Ctrl-C, SIGHUP and SIGQUIT take the same way, through
laws/__main__.py `interrupt`; each run of this test costs seconds of CPU.)
The signal is sent once CrossHair is seen running, not after a time."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.hostile.processes import PY, Hostile


def marked_crosshair(run: Hostile) -> bool:
    """Whether a CrossHair process carrying the test's mark runs."""
    return any("crosshair" in line for line in run.left())


def test_an_interrupted_laws_run_leaves_no_crosshair(run: Hostile, tmp_path: Path) -> None:
    process = subprocess.Popen(
        [PY, "-m", "laws", "--only", "bits_agree", "--regressions", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=run.env,
        start_new_session=True,
    )
    try:
        until = time.monotonic() + 120
        while not marked_crosshair(run) and process.poll() is None:
            assert time.monotonic() < until, "CrossHair did not start in 120 s"
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before CrossHair was seen"
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 2, (out, err)
    assert "Traceback" not in out + err
    assert not run.left_after(), "a process of the laws run outlived it"
