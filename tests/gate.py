"""`python -m tests.gate`: the CI gate (`make test`), its independent stages
run side by side on every core.

Each stage is one command of the project (docs/developing.md, "What
`make test` runs"); its output goes to build/gate/STAGE.log. Every 10 s
a line says which stages run and how far each is: what it wrote to
build/gate/STAGE.progress (the file OPTCHAT_GATE_PROGRESS names; the
unit tests write how many are done of how many, tests/progress.py), else
the last line it printed, whole; at the end a table gives each stage's
result, wall time and CPU time (also written to build/gate/times.json, for
`make bench`), and the log of each failed stage is shown. The
exit code keeps the project's contract: 0 when every stage passes, 2
when a stage reports bad input, an engine fault or a harness error (its
own exit code 2, or a crash), else 1. Each stage is a process group of
its own: on SIGTERM, SIGHUP, SIGQUIT or Ctrl-C the gate ends every
running stage with whatever it started, and exits 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from bridge.runs.ending import on_ending
from laws.mutants import group_cpu
from tests.progress import PROGRESS

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "build" / "gate"
PY = sys.executable


@dataclass(frozen=True)
class Stage:
    """One command of the gate, with the environment it needs and the
    stages that must pass before it starts."""

    name: str
    command: tuple[str, ...]
    what: str
    env: tuple[tuple[str, str], ...] = ()
    needs: tuple[str, ...] = ()


ENGINE = ("engine",)
"""What a stage that loads the engine's C build needs first."""

UNIT_WORKERS = 2
"""The unit tests' workers: one a core. The other stages run one at a time
beside them, so the two cores stay busy until the unit tests, the longest
stage, end; a third worker cost more CPU seconds than its waits gave back
(2026-12-06, the gate from a fresh clone on the quiet machine, back to
back: three workers 194 s wall, unit 230 CPU s; two 188 s, 205)."""

STAGES = [
    Stage(
        "engine",
        (PY, "-m", "impl.build", "--if-stale"),
        "the engine's C build (mypyc), unless it matches the sources",
    ),
    Stage(
        "bridge-model",
        # One job, as every corpus stage: a pool of two beside the unit tests'
        # two workers only shares their cores (2026-12-06, quiet, back to
        # back: the model's stage 27 s wall either way, 27 CPU s with two
        # jobs, 23 with one).
        (PY, "-m", "bridge", "corpus", "--engine", "model", "--jobs", "1"),
        "the model against its committed transcripts, whole corpus",
    ),
    Stage(
        "unit",
        (PY, "-m", "pytest", "-n", str(UNIT_WORKERS), "--dist", "loadgroup")
        + ("-p", "no:cacheprovider", "-p", "tests.progress", "--durations", "15")
        + ("-m", "not more"),
        f"unit tests (pytest, {UNIT_WORKERS} workers; the 15 slowest named in its log; "
        "not those marked `more`, `make test-more`)",
        needs=ENGINE,
    ),
    Stage(
        "laws",
        # One job, as the mutants: beside the unit tests' two workers a
        # second worker only shares their cores, and pays again for what the
        # check laws share in one process (2026-12-06, loaded, back to back:
        # 32 to 36 CPU s with one, 36 to 38 with two).
        (PY, "-m", "laws", "--jobs", "1"),
        "every law of SPEC 8, CI profile",
    ),
    Stage(
        "mutants",
        # One job: beside the unit tests' two workers a second job only
        # shares their cores (2026-12-06, quiet: gate 188 s wall with two
        # jobs, 178 s with one).
        (PY, "-m", "laws.mutants", "--first-catch", "--jobs", "1"),
        "every deliberate break of SPEC 9, each up to its first catch",
    ),
    *(
        Stage(
            f"bridge-{name}",
            (PY, "-m", "bridge", "corpus", "--engine", "impl", "--jobs", "1")
            + ("--profile", f"scenarios/profiles/{name}.json"),
            f"the engine under the {name} profile against that profile's transcripts",
            needs=ENGINE,
        )
        for name in ("deviant", "policies", "words")
    ),
    Stage(
        "fuzz",
        (PY, "-m", "bridge", "fuzz", "--engine", "impl", "--seed", "1", "--histories", "100"),
        "100 generated histories, derandomized, against the engine",
        needs=ENGINE,
    ),
    Stage(
        "bridge-impl",
        (PY, "-m", "bridge", "corpus", "--engine", "impl", "--jobs", "1"),
        "the engine (C build) in process, whole corpus",
        needs=ENGINE,
    ),
]
"""In the order they start, each once the stages it needs have passed: the
engine's build first, since most stages wait for it, then the longest, so
the last to end is short.
The engine as plain Python through the line protocol on the whole corpus
(`make bridge-protocol`) is not a stage: the unit tests run exactly that,
from the installed wheel (tests/packaging/test_install.py)."""


@dataclass
class Running:
    """A started stage."""

    stage: Stage
    process: subprocess.Popen[bytes]
    log: Path
    began: float
    code: int | None = None
    seconds: float = 0.0
    cpu: float = 0.0
    used: float = 0.0
    """CPU seconds its process group had used when last looked at."""
    progressed: float = 0.0
    """When it was last seen using CPU."""


def progress_file(name: str) -> Path:
    """Where a stage may say how far it is (the heartbeat shows it)."""
    return LOGS / f"{name}.progress"


def start(stage: Stage) -> Running:
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{stage.name}.log"
    progress_file(stage.name).unlink(missing_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            stage.command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, PROGRESS: str(progress_file(stage.name)), **dict(stage.env)},
            start_new_session=True,
        )
    now = time.monotonic()
    return Running(stage, process, log, now, progressed=now)


def hung(stage: Running, now: float) -> bool:
    """Whether the stage has used no CPU for STALL seconds (never without /proc)."""
    used = group_cpu(stage.process.pid)
    if used is None or used > stage.used:
        stage.used, stage.progressed = used or 0.0, now
        return False
    return now - stage.progressed >= STALL


TICK = 10.0
"""Seconds between the lines saying what each running stage last printed."""

STALL = 600.0
"""Seconds a stage may use no CPU at all (its process group, Linux's /proc)
before it counts as hung: it is killed and the gate fails, instead of
waiting for ever (a deadlocked pool worker once held the unit stage)."""

GRACE = 10.0
"""Seconds an interrupted stage has to end its own processes before they
are killed."""


def end(running: list[Running]) -> None:
    """End every running stage and whatever it started (each stage is a
    process group of its own): SIGTERM, then SIGKILL after GRACE seconds."""
    for stage in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stage.process.pid, signal.SIGTERM)
    until = time.monotonic() + GRACE
    for stage in running:
        with contextlib.suppress(subprocess.TimeoutExpired):
            stage.process.wait(max(0.0, until - time.monotonic()))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(stage.process.pid, signal.SIGKILL)
        stage.process.wait()


def terminated(signum: int, _: FrameType | None) -> None:
    raise KeyboardInterrupt


def last_line(log: Path) -> str:
    """The last non-empty line a stage printed so far, whole: its count and
    its last result are at either end of it (pytest's dots end a line with
    how far it is, a corpus run's line starts with it and ends with the
    scenario's verdict), so no part of it is cut. Its last whole line when it
    has one (the line being written says only how many tests ran)."""
    with log.open("rb") as file:
        file.seek(max(0, log.stat().st_size - 4096))
        tail = file.read().decode("utf-8", "replace").replace("\r", "\n")
    *whole, being_written = tail.split("\n")
    lines = [line.strip() for line in whole if line.strip()]
    return lines[-1] if lines else being_written.strip() or "(nothing yet)"


def how_far(stage: Running) -> str:
    """What the heartbeat says of a running stage: what it last wrote to its
    progress file, else the last line of its log."""
    try:
        said = progress_file(stage.stage.name).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        said = ""
    return said or last_line(stage.log)


def reap(running: list[Running]) -> Running | None:
    """Wait for any stage to end (at most one second); the ended one, with
    its exit code and CPU time."""
    try:
        pid, status, usage = os.wait4(-1, os.WNOHANG)
    except ChildProcessError:
        return None
    if pid == 0:
        time.sleep(0.2)
        return None
    for stage in running:
        if stage.process.pid == pid:
            stage.code = os.waitstatus_to_exitcode(status)
            stage.process.returncode = stage.code
            stage.seconds = time.monotonic() - stage.began
            stage.cpu = usage.ru_utime + usage.ru_stime
            return stage
    return None


def verdict(code: int | None) -> str:
    return {0: "passed", 1: "FAILED", 2: "BAD INPUT OR HARNESS ERROR"}.get(
        code if code is not None else -1, f"CRASHED (exit {code})"
    )


def run(
    waiting: list[Stage],
    chosen: set[str],
    jobs: int,
    began: float,
    running: list[Running],
    ended: list[Running],
    not_run: list[Stage],
) -> None:
    """Start the waiting stages, each once what it needs has passed, at most
    `jobs` at once, until every one has ended (moved to `ended`) or cannot
    run (`not_run`); every 10 s, what each running stage last said."""
    said = began
    while waiting or running:
        passed = {r.stage.name for r in ended if r.code == 0}
        gone_wrong = {r.stage.name for r in ended if r.code != 0}
        for stage in list(waiting):
            failed_needs = [n for n in stage.needs if n in gone_wrong]
            if failed_needs:
                waiting.remove(stage)
                not_run.append(stage)
                print(
                    f"[{time.monotonic() - began:5.0f} s] {stage.name} not run: "
                    f"{', '.join(failed_needs)} failed",
                    flush=True,
                )
        for stage in list(waiting):
            if len(running) >= max(1, jobs):
                break
            if all(n in passed or n not in chosen for n in stage.needs):
                waiting.remove(stage)
                running.append(start(stage))
                print(f"[{time.monotonic() - began:5.0f} s] started {stage.name}", flush=True)
        done = reap(running)
        if done is not None:
            running.remove(done)
            ended.append(done)
            print(
                f"[{time.monotonic() - began:5.0f} s] {done.stage.name} {verdict(done.code)} "
                f"({done.seconds:.0f} s): {last_line(done.log)}",
                flush=True,
            )
        if time.monotonic() - said >= TICK and running:
            said = time.monotonic()
            for stage in running:
                print(
                    f"[{said - began:5.0f} s]   {stage.stage.name}: {how_far(stage)}",
                    flush=True,
                )
                if hung(stage, said):
                    print(
                        f"[{said - began:5.0f} s] {stage.stage.name} used no CPU for "
                        f"{STALL:.0f} s: hung, killed",
                        flush=True,
                    )
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(stage.process.pid, signal.SIGKILL)


TIMES = "times.json"
"""The table's numbers, for `make bench` (its row of the gate's CPU seconds)."""


def write_times(ended: list[Running], wall: float, cpu: float, passed: bool) -> None:
    """The final table as JSON in LOGS/TIMES: the gate's wall and CPU
    seconds, whether it passed, and each stage's result, wall and CPU."""
    stages = {
        r.stage.name: {
            "result": verdict(r.code),
            "wall": round(r.seconds, 1),
            "cpu": round(r.cpu, 1),
        }
        for r in ended
    }
    times = {"wall": round(wall, 1), "cpu": round(cpu, 1), "passed": passed, "stages": stages}
    (LOGS / TIMES).write_text(json.dumps(times, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.gate", description=__doc__)
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="stages at once (default: cores)"
    )
    parser.add_argument("--only", nargs="*", metavar="STAGE", help="these stages only")
    args = parser.parse_args(argv)
    names = [s.name for s in STAGES]
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        parser.error(f"no stage {', '.join(unknown)}; the stages are {', '.join(names)}")
    waiting = [s for s in STAGES if args.only is None or s.name in args.only]
    chosen = {s.name for s in waiting}
    began = time.monotonic()
    running: list[Running] = []
    ended: list[Running] = []
    not_run: list[Stage] = []
    for stage in waiting:
        print(f"gate: {stage.name:<16} {stage.what}", flush=True)
    before = on_ending(terminated)
    try:
        run(waiting, chosen, args.jobs, began, running, ended, not_run)
    except KeyboardInterrupt:
        names = ", ".join(r.stage.name for r in running) or "none"
        print(f"\ngate: interrupted; ending the stages still running ({names})", flush=True)
        end(running)
        return 2
    finally:
        for each, handler in before.items():
            signal.signal(each, handler)
    wall = time.monotonic() - began
    failed = [r for r in ended if r.code != 0]
    for stage in failed:
        lines = stage.log.read_text(encoding="utf-8", errors="replace").splitlines()
        print(
            f"\n==== {stage.stage.name}: {verdict(stage.code)}; its last lines ({stage.log}) ===="
        )
        print("\n".join(lines[-60:]))
    print(f"\n{'stage':<16} {'result':<10} {'wall s':>7} {'cpu s':>7}")
    for stage in sorted(ended, key=lambda r: -r.seconds):
        print(
            f"{stage.stage.name:<16} {verdict(stage.code)[:10]:<10} "
            f"{stage.seconds:7.1f} {stage.cpu:7.1f}"
        )
    for skipped in not_run:
        print(f"{skipped.name:<16} {'NOT RUN':<10}")
    cpu = sum(r.cpu for r in ended)
    print(f"{'gate':<16} {'':<10} {wall:7.1f} {cpu:7.1f}")
    write_times(ended, wall, cpu, passed=not failed and not not_run)
    if not failed:
        print(f"GATE PASSED: {len(ended)} stages in {wall:.0f} s")
        return 0
    code = 2 if any(r.code != 1 for r in failed) else 1
    print(f"GATE FAILED: {', '.join(r.stage.name for r in failed)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
