"""Running the bridge on a hostile engine and finding what it left behind,
read from /proc (Linux): every process of a group an engine led, and every
process carrying the run's mark in its environment."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import bridge.cli as cli

ROOT = Path(__file__).resolve().parents[2]
ENGINES = Path(__file__).parent / "engines"
PY = sys.executable


def engine(how: str, *more: object) -> str:
    """The command of a hostile engine (tests/hostile/engines/hostile.py)."""
    return " ".join([PY, str(ENGINES / "hostile.py"), how, *map(str, more)])


@dataclass
class Run:
    """One bridge run: its exit code, stdout, and stderr."""

    code: int
    out: str
    err: str

    def error_lines(self) -> list[str]:
        """The lines of stderr the bridge wrote itself (an engine's own stderr
        is quoted indented below them)."""
        return [line for line in self.err.splitlines() if line and not line[0].isspace()]


AS_A_TERMINAL_DOES = (
    "import os, signal, sys; "
    "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGQUIT)]; "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)
"""A command's start with SIGINT and SIGQUIT at their defaults, as a
terminal starts a job: an ignored signal is inherited, and the runner
leaves one ignored when it starts ignored (`nohup`, bridge/runs/ending.py).
The test process may have them ignored for a moment: test_signals'
SIGQUIT case hung in three gate runs of 2026-12-06, and in the one read
from /proc the run had started with both ignored and never took the SIGQUIT."""


def stuck(group: int) -> str:
    """Each process of a process group, with what it waits on (its state,
    its kernel wait channel, its signal dispositions), read from /proc: what a
    run that did not end was doing."""
    lines = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or os.getpgid(int(entry.name)) != group:
                continue
            status = dict(
                line.split(":\t", 1)
                for line in (entry / "status").read_text().splitlines()
                if ":\t" in line
            )
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            wchan = (entry / "wchan").read_text()
        except (OSError, ValueError):
            continue
        said = " ".join(
            f"{k}={status.get(k, '?').strip()}" for k in ("State", "SigBlk", "SigIgn", "SigCgt")
        )
        lines.append(f"  {entry.name} {said} wchan={wchan} {command[:160]}\n")
    return "".join(lines)


@dataclass
class Hostile:
    """A mark for the processes of one test, and a folder the engines write to."""

    mark: str
    folder: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HOSTILE_MARK": self.mark,
            "HOSTILE_DIR": str(self.folder),
        }

    def main(self, *args: str, limit: float = 60.0) -> Run:
        """`python -m bridge ARGS` in this process (faster than starting one),
        its engines given the mark; the exit code, stdout and stderr. A run
        still going after `limit` seconds is stopped and fails the test."""
        out, err = io.StringIO(), io.StringIO()
        saved = {k: os.environ.get(k) for k in ("HOSTILE_MARK", "HOSTILE_DIR")}
        os.environ.update(HOSTILE_MARK=self.mark, HOSTILE_DIR=str(self.folder))
        alarm = signal.signal(signal.SIGALRM, too_long)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = cli.main(list(args))
                except SystemExit as exit:
                    code = int(exit.code or 0)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, alarm)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        return Run(code, out.getvalue(), err.getvalue())

    def start(self, *args: str, under: tuple[str, ...] = ()) -> subprocess.Popen[str]:
        """`python -m bridge ARGS`, started in a session of its own (by the
        command `under`, as `nohup`, when given), with Ctrl-C and SIGQUIT
        taken as a terminal's job takes them (`AS_A_TERMINAL_DOES`)."""
        return subprocess.Popen(
            [PY, "-c", AS_A_TERMINAL_DOES, *under, PY, "-m", "bridge", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=self.folder,
            start_new_session=True,
        )

    def bridge(self, *args: str, limit: float = 60.0) -> Run:
        """`python -m bridge ARGS` run to its end; a run still going after
        `limit` seconds is killed and fails the test."""
        return self.finish(self.start(*args), limit)

    def finish(self, process: subprocess.Popen[str], limit: float = 60.0) -> Run:
        """A bridge run waited for, `limit` seconds at most (then killed: the test fails)."""
        try:
            out, err = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            waiting = stuck(process.pid)
            os.killpg(process.pid, signal.SIGKILL)
            _, err = process.communicate()
            raise AssertionError(
                f"the bridge still ran after {limit:g} s; its processes then:\n{waiting}"
                f"its stderr:\n{err}"
            ) from None
        return Run(process.returncode, out, err)

    def groups(self) -> set[int]:
        """The process groups the engines of this test ran in, but this
        process's own (an engine not given a group of its own is found by
        its mark alone)."""
        found = {int(path.read_text()) for path in self.folder.glob("group-*")}
        return found - {os.getpgid(0)}

    def left(self) -> list[str]:
        """The processes of this test still there (zombies too), as `pid (state) command`."""
        groups = self.groups()
        mark = f"HOSTILE_MARK={self.mark}".encode()
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                stat = (proc / "stat").read_text()
                environ = (proc / "environ").read_bytes().split(b"\0")
                command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue  # gone meanwhile, or not ours
            state, _parent, group = stat[stat.rindex(")") + 2 :].split()[:3]
            if int(group) in groups or mark in environ:
                found.append(f"{proc.name} ({state}) {command}")
        return found

    def left_after(self, seconds: float = 5.0) -> list[str]:
        """What is still there once `seconds` have passed (returns as soon as
        nothing is: a killed process takes a moment to be reaped)."""
        until = time.monotonic() + seconds
        while (found := self.left()) and time.monotonic() < until:
            time.sleep(0.05)
        return found

    def kill_left(self) -> None:
        for line in self.left():
            try:
                os.kill(int(line.split()[0]), signal.SIGKILL)
            except ProcessLookupError:
                pass


class TooLong(AssertionError):
    """A bridge run in this process outlived its limit."""


def too_long(_signum: int, _frame: object) -> None:
    raise TooLong("the bridge still ran after its limit")


def hostile(folder: Path) -> Hostile:
    return Hostile(f"hostile-{uuid.uuid4().hex}", folder)
