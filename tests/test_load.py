"""`python -m tests.load` (`make test LOAD=N`): the busy processes run while
the command does, and none is left after it, whether the command passes,
fails, or the runner is stopped by SIGTERM or killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start(busy: int, script: str) -> tuple[subprocess.Popen[str], list[int]]:
    """The runner with `busy` busy processes beside `python -c script`, and
    their pids (from its first line)."""
    runner = subprocess.Popen(
        [sys.executable, "-m", "tests.load", str(busy), "--", sys.executable, "-c", script],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert runner.stdout is not None
    first = runner.stdout.readline()
    assert first.startswith(f"load: {busy} busy processes ("), first
    pids = [int(pid) for pid in first.split("(")[1].split(")")[0].split()]
    assert len(pids) == busy
    return runner, pids


def cpu_ticks(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return sum(int(f) for f in stat[stat.rfind(")") + 2 :].split()[11:13])


def gone(pid: int, within: float = 20.0) -> bool:
    """Whether process `pid` has ended (or is a zombie, ended but not yet
    reaped) within `within` seconds."""
    end = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.1)


def spun(pid: int, was: int) -> bool:
    """Whether process `pid` has used more CPU than `was` ticks within a minute."""
    end = time.monotonic() + 60
    while cpu_ticks(pid) <= was and time.monotonic() < end:
        time.sleep(0.02)
    return cpu_ticks(pid) > was


def test_the_busy_processes_spin_while_the_command_runs_and_end_with_it() -> None:
    """The command ends when it reads a line, sent once both busy processes
    have spun: they spin while it runs, for as long as that takes to see."""
    runner, pids = start(2, "import sys\nsys.stdin.readline()\nprint('done')\nsys.exit(3)\n")
    before = [cpu_ticks(pid) for pid in pids]
    assert all(spun(pid, was) for pid, was in zip(pids, before, strict=True))
    out, _ = runner.communicate("go\n", timeout=60)
    assert runner.returncode == 3, "the command's exit code is the runner's"
    assert "done\n" in out and out.endswith("load: the 2 busy processes ended\n")
    assert all(gone(pid, within=0.0) for pid in pids)


def test_sigterm_ends_the_command_and_the_busy_processes() -> None:
    runner, pids = start(2, "import time\ntime.sleep(60)\n")
    runner.send_signal(signal.SIGTERM)
    runner.communicate(timeout=60)
    assert runner.returncode == 128 + signal.SIGTERM
    assert all(gone(pid) for pid in pids)


def test_busy_processes_end_by_themselves_when_the_runner_is_killed() -> None:
    runner, pids = start(2, "import time\ntime.sleep(5)\n")
    os.kill(runner.pid, signal.SIGKILL)
    runner.communicate(timeout=60)
    assert all(gone(pid) for pid in pids)


def test_a_bad_count_or_command_is_a_usage_error() -> None:
    for args in (["65", "--", "true"], ["-1", "--", "true"], ["2"]):
        done = subprocess.run(
            [sys.executable, "-m", "tests.load", *args], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 2, args
        assert "Traceback" not in done.stderr
