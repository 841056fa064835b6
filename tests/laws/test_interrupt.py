"""A laws run cut short by a signal (laws/__main__.py `run`): the laws
judged so far printed, the rest said not reached, exit 2, and no worker
process left behind (the standard: every command keeps its partial results
on Ctrl-C, SIGTERM or SIGHUP and leaves no process behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAWS = ("constants_allowed", "view_covers")
"""A step law and a check law on two workers: the step law's histories are
the first task and take the longest (laws/__main__.py `plan`), the check law
is judged in about a CPU second on the other worker, and the signal is sent
once it is: the run is then still drawing histories, a worker busy."""


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_signal_ends_the_workers_and_keeps_the_laws_judged(tmp_path: Path, signum: int) -> None:
    err = tmp_path / "err"
    with err.open("w") as stderr:
        run = subprocess.Popen(
            [sys.executable, "-m", "laws", "--jobs", "2", "--regressions", str(tmp_path)]
            + ["--only", *LAWS],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
    try:
        until = time.monotonic() + 600
        while "done at " not in err.read_text() and run.poll() is None:
            assert time.monotonic() < until, "no law was judged in 600 s"
            time.sleep(0.1)
        run.send_signal(signum)
        out, _ = run.communicate(timeout=120)
        deadline = time.monotonic() + 30
        while group_alive(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not group_alive(run.pid), "a worker outlived the laws run"
    finally:
        if group_alive(run.pid):
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 2, out
    (last,) = [line for line in out.splitlines() if line.startswith("INTERRUPTED: ")]
    judged, of = (int(word) for word in last.split()[1:4:2])
    rows = [line.split() for line in out.splitlines() if line.split()[1:2] == ["holds"]]
    assert judged == len(rows) and 0 < judged < of, out
    assert out.count("not reached (the run ended first)") == of - judged, out
    assert "Traceback" not in out + err.read_text()
