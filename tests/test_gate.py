"""The gate runner (`make test`): every stage runs, its failure is shown with
its log, and the exit code follows the project's contract."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import gate
from tests.progress import PROGRESS


def stage(name: str, code: int, said: str) -> gate.Stage:
    script = f"print({said!r}); raise SystemExit({code})"
    return gate.Stage(name, (sys.executable, "-c", script), f"prints {said}")


@pytest.mark.parametrize(
    ("codes", "exit"),
    [((0, 0, 0), 0), ((0, 1, 0), 1), ((1, 2, 0), 2), ((0, 0, -9), 2)],
)
def test_the_exit_code_follows_the_contract(
    codes: tuple[int, ...],
    exit: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stages = [stage(f"s{k}", code, f"stage {k} said this") for k, code in enumerate(codes)]
    monkeypatch.setattr(gate, "STAGES", stages)
    monkeypatch.setattr(gate, "LOGS", tmp_path)
    assert gate.main(["--jobs", "2"]) == exit
    out = capsys.readouterr().out
    for k, code in enumerate(codes):
        assert (tmp_path / f"s{k}.log").read_text() == f"stage {k} said this\n"
        row = next(line for line in out.splitlines() if line.startswith(f"s{k} "))
        assert ("passed" in row) == (code == 0)
        # A failed stage's log is shown, naming it.
        assert (f"==== s{k}:" in out) == (code != 0)
    assert ("GATE PASSED: 3 stages" in out) == (exit == 0)
    # The table's numbers are kept for `make bench`, as the table shows them.
    times = json.loads((tmp_path / gate.TIMES).read_text())
    assert times["passed"] == (exit == 0)
    assert {n: s["result"] == "passed" for n, s in times["stages"].items()} == {
        f"s{k}": code == 0 for k, code in enumerate(codes)
    }
    total = next(line for line in out.splitlines() if line.startswith("gate "))
    assert total.split()[1:] == [f"{times['wall']:.1f}", f"{times['cpu']:.1f}"]
    assert times["cpu"] == pytest.approx(sum(s["cpu"] for s in times["stages"].values()), abs=0.2)


def test_an_unknown_stage_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        gate.main(["--only", "unti"])
    assert stopped.value.code == 2
    assert "no stage unti" in capsys.readouterr().err


def test_a_stage_starts_only_after_what_it_needs_has_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made = tmp_path / "made"
    slow = f"import time, pathlib; time.sleep(0.5); pathlib.Path({str(made)!r}).touch()"
    check = f"import pathlib; raise SystemExit(0 if pathlib.Path({str(made)!r}).exists() else 1)"
    stages = [
        gate.Stage("build", (sys.executable, "-c", slow), "makes a file"),
        gate.Stage("use", (sys.executable, "-c", check), "needs it", needs=("build",)),
    ]
    monkeypatch.setattr(gate, "STAGES", stages)
    monkeypatch.setattr(gate, "LOGS", tmp_path)
    # Two slots: without the need, "use" would start beside "build" and fail.
    assert gate.main(["--jobs", "2"]) == 0
    assert "GATE PASSED: 2 stages" in capsys.readouterr().out


def test_a_stage_whose_need_failed_is_not_run_and_the_gate_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = tmp_path / "ran"
    stages = [
        stage("build", 2, "the compiler crashed"),
        gate.Stage(
            "use",
            (sys.executable, "-c", f"open({str(ran)!r}, 'w')"),
            "needs it",
            needs=("build",),
        ),
        stage("other", 0, "independent"),
    ]
    monkeypatch.setattr(gate, "STAGES", stages)
    monkeypatch.setattr(gate, "LOGS", tmp_path)
    assert gate.main(["--jobs", "2"]) == 2
    out = capsys.readouterr().out
    assert not ran.exists()
    assert "use not run: build failed" in out
    assert any(line.startswith("use ") and "NOT RUN" in line for line in out.splitlines())
    assert any(line.startswith("other ") and "passed" in line for line in out.splitlines())


def test_a_stage_is_said_by_its_last_whole_line(tmp_path: Path) -> None:
    log = tmp_path / "unit.log"
    log.write_text("....... [ 45%]\n....... [ 50%]\n\n...")
    assert gate.last_line(log) == "....... [ 50%]"
    log.write_text("step 1\rstep 2\r")
    assert gate.last_line(log) == "step 2"
    log.write_text("...")
    assert gate.last_line(log) == "..."
    log.write_text("")
    assert gate.last_line(log) == "(nothing yet)"
    log.write_text("." * 72 + " [  4%]\n" + "." * 5)
    assert gate.last_line(log) == "." * 72 + " [  4%]"
    # A long line whole: its count at the start, its last result at the end.
    said = "[17/112] PASS deep_4000_6000.jsonl " + "x" * 80 + " 6,259 events compared (4 s)"
    log.write_text(said + "\n")
    assert gate.last_line(log) == said


def test_a_stage_that_says_how_far_it_is_is_said_by_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gate, "LOGS", tmp_path)
    said = stage("unit", 0, "bringing up nodes...")
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    unit = gate.Running(said, process, tmp_path / "unit.log", 0.0)
    unit.log.write_text("bringing up nodes...\n" + "." * 30)
    assert gate.how_far(unit) == "bringing up nodes..."
    gate.progress_file("unit").write_text("312 of 905 tests done, 1 failed\n")
    assert gate.how_far(unit) == "312 of 905 tests done, 1 failed"


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_ends_every_stage_and_what_it_started(tmp_path: Path, signum: int) -> None:
    """The gate (as `make test` runs it, killed by CI or `tests.load`, or its
    terminal closed) leaves no stage running, nor a process a stage started."""
    pids = tmp_path / "pids"
    stage_code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"with open({str(pids)!r}, 'a') as f: f.write(f'{{os.getpid()}} {{child.pid}}\\n')\n"
        "time.sleep(600)\n"
    )
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tests import gate\n"
        f"gate.LOGS = Path({str(tmp_path)!r})\n"
        f"gate.STAGES = [gate.Stage(n, (sys.executable, '-c', {stage_code!r}), n)"
        " for n in ('a', 'b')]\n"
        "sys.exit(gate.main(['--jobs', '2']))\n"
    )
    runner = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=gate.ROOT
    )
    until = time.monotonic() + 120
    while (not pids.exists() or len(pids.read_text().split()) < 4) and time.monotonic() < until:
        time.sleep(0.05)
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 4, "both stages and their children started"
    runner.send_signal(signum)
    out, _ = runner.communicate(timeout=120)
    alive = [pid for pid in started if running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "a stage or a process it started outlived the gate"
    assert runner.returncode == 2, out
    assert "gate: interrupted; ending the stages still running (a, b)" in out


def test_a_stage_that_uses_no_cpu_for_long_is_hung_and_fails_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stuck = "import time; print('waiting on a lock', flush=True); time.sleep(600)"
    stages = [gate.Stage("stuck", (sys.executable, "-c", stuck), "never ends")]
    monkeypatch.setattr(gate, "STAGES", stages)
    monkeypatch.setattr(gate, "LOGS", tmp_path)
    monkeypatch.setattr(gate, "TICK", 0.2)
    monkeypatch.setattr(gate, "STALL", 2.0)
    began = time.monotonic()
    assert gate.main(["--jobs", "1"]) == 2
    assert time.monotonic() - began < 300
    out = capsys.readouterr().out
    assert "stuck used no CPU for 2 s: hung, killed" in out
    assert "==== stuck: CRASHED (exit -9)" in out and "waiting on a lock" in out


def test_the_unit_stage_keeps_each_xdist_group_on_one_worker_and_counts_its_tests(
    tmp_path: Path,
) -> None:
    """The unit stage's `--dist loadgroup` runs the tests of one `xdist_group`
    on one worker, so a group's costly fixtures (one wheel and its
    environment, one zipapp) are made once: pytest 9.2.0 with pytest-xdist
    3.8.0 ignored the groups and scattered them (pytest-xdist issue 1386).
    Its plugin (tests/progress.py) counts the tests done of all, a failed
    one too, in the file the gate reads."""
    unit = next(s for s in gate.STAGES if s.name == "unit")
    at = unit.command.index("--dist")
    plugin = unit.command.index("tests.progress") - 1
    for name in ("a", "b"):
        (tmp_path / f"test_{name}.py").write_text(
            "import pytest\n"
            "pytestmark = pytest.mark.xdist_group('together')\n"
            "@pytest.mark.parametrize('k', range(4))\n"
            "def test_k(k):\n"
            f"    assert (k, {name!r}) != (3, 'b')\n"
        )
    progress = tmp_path / "unit.progress"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", *unit.command[at : at + 2]]
        + [*unit.command[plugin : plugin + 2], "-p", "no:cacheprovider", "-o", "addopts="]
        + ["-p", "xdist", "-v", "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path,
        # Only xdist and the progress plugin: Hypothesis's, loaded by each of
        # the three processes, has nothing to do with the groups.
        env={**os.environ, PROGRESS: str(progress), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    ran = [line.split("]")[0] for line in done.stdout.splitlines() if "PASSED" in line]
    assert len(ran) == 7 and len(set(ran)) == 1, done.stdout
    assert progress.read_text() == "8 of 8 tests done, 1 failed\n"
