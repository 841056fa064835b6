"""Engine processes as the bridge sees them: a crash, a hang, garbage or a
fault at the header is an ENGINE FAULT naming the line, never a divergence;
stderr is read all along; a command that cannot start is said in one line
(tests/hostile/ holds the engines that misbehave worse)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

import bridge.cli as cli
from bridge.formats.profile import SPEC
from bridge.wire.engine import EngineFault
from bridge.wire.process import BATCH, ProcessEngine
from bridge.wire.stream import from_model
from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario

FAULTY = Path(__file__).parent / "engines" / "faulty.py"
MESSAGES = [{"event": "message", "kind": "user", "size": 3}] * 6


def replay(engine: ProcessEngine) -> None:
    scenario = replace(random_scenario(6, 10), events=MESSAGES)
    engine.start(scenario)
    try:
        for exchange in from_model(scenario, SPEC, strict=True):
            engine.send(exchange.line)
            engine.receive()
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("crash", "closed its output (crashed?) at event 3 (message)"),
        ("hang", "gave no answer within 1 s at event 3 (message)"),
        ("garbage", "printed garbage: b'hello, I am not JSON' at event 3"),
        ("short", "answered without shrinking"),
    ],
)
def test_engine_faults_name_the_event(how: str, said: str) -> None:
    engine = ProcessEngine(f"{sys.executable} {FAULTY} {how} 3", timeout=1)
    with pytest.raises(EngineFault) as caught:
        replay(engine)
    assert said in str(caught.value)
    if how == "crash":
        assert "exit code 3" in str(caught.value) and "boom" in str(caught.value)


def test_a_crash_met_while_writing_is_named_at_the_first_event_unanswered() -> None:
    """The engine answers events 0 to 2 and exits at 3; the runner writes
    the lines after the first BATCH only once the engine is gone (as on a
    loaded machine, where the engine runs ahead of the runner): the broken
    pipe is not the fault of event 0, whose answer waits to be read."""
    engine = ProcessEngine(f"{sys.executable} {FAULTY} crash 3", timeout=5)
    scenario = replace(random_scenario(6, 10), events=MESSAGES[:1] * (2 * BATCH + 1))
    exchanges = list(from_model(scenario, SPEC, strict=True))
    engine.start(scenario)
    try:
        for exchange in exchanges[:BATCH]:
            engine.send(exchange.line)  # the BATCH-th line writes them all
        assert engine.process is not None and engine.process.wait(timeout=60) == 3
        for exchange in exchanges[BATCH:]:
            engine.send(exchange.line)
        for exchange in exchanges[:3]:
            assert engine.receive()["size"] == exchange.expected["size"]
        with pytest.raises(EngineFault, match=r"closed its output \(crashed\?\) at event 3 "):
            engine.receive()
    finally:
        engine.close()


def test_an_engine_that_floods_its_stderr_is_not_a_hang() -> None:
    """64 KB of stderr at every event fills a pipe nobody reads within one event."""
    replay(ProcessEngine(f"{sys.executable} {FAULTY} noisy 99", timeout=5))


def test_a_fault_at_the_header_leaves_no_engine_running() -> None:
    engine = ProcessEngine(f"{sys.executable} {FAULTY} header 0", timeout=1)
    with pytest.raises(EngineFault, match="answered the header with"):
        engine.start(random_scenario(6, 3))
    assert engine.process is None


def test_an_engine_fault_is_not_a_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    scenario_format.write(random_scenario(7, 20), path)
    code = cli.main(["compare", str(path), "--engine", f"{sys.executable} {FAULTY} crash 2"])
    assert code == 2
    err = capsys.readouterr().err
    assert "ENGINE FAULT (not a divergence)" in err and "event 2" in err


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("/no/such/engine --bridge", "cannot be started: No such file or directory"),
        ("", "the engine command is empty"),
        (str(FAULTY), "cannot be started: Permission denied"),
        ("engine 'unclosed", "cannot be split: No closing quotation"),
    ],
)
def test_a_command_that_cannot_start_is_one_line_and_exit_2(
    command: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    scenario_format.write(random_scenario(8, 5), path)
    assert cli.main(["compare", str(path), "--engine", command]) == 2
    out, err = capsys.readouterr()
    assert said in err and "Traceback" not in out + err
    assert str(path) not in err, "the engine's fault is not blamed on the scenario"


def test_a_user_mistake_never_prints_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Missing, a directory, no file at all: exit 2, one message; the first
    in a fresh process, the others in this one (`python -m bridge`'s
    `main`, argparse's SystemExit taken as the interpreter takes it)."""
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "compare", str(tmp_path / "nope.jsonl")]
        + ["--engine", "impl"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        check=False,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    for args in (["compare", str(tmp_path)], ["compare"]):
        try:
            code = cli.main([*args, "--engine", "impl"])
        except SystemExit as ended:
            code = ended.code
        out, err = capsys.readouterr()
        assert code == 2, (args, out, err)
        assert "Traceback" not in out + err, args


def test_a_hung_engine_is_killed_at_close() -> None:
    engine = ProcessEngine(f"{sys.executable} {FAULTY} hang 1", timeout=1)
    with pytest.raises(EngineFault):
        replay(engine)
    time.sleep(0.1)
    survivors = subprocess.run(
        ["pgrep", "-f", f"{FAULTY} hang 1"], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in survivors:
        os.kill(int(pid), signal.SIGKILL)
    assert not survivors, "the hung engine outlived the bridge"


def test_an_engine_that_exited_is_not_waited_for_a_fixed_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 24: after a crash the bridge waits on the process's exit (which
    has come), never for a fixed time: no wait for it runs out and nothing
    sleeps, from the fault to the end of `close`."""
    waits: list[tuple[float | None, bool]] = []
    sleeps: list[float] = []
    waiting = False
    real_wait, real_sleep = subprocess.Popen.wait, time.sleep

    def wait(self: subprocess.Popen[bytes], timeout: float | None = None) -> int:
        nonlocal waiting
        waiting = True
        try:
            code = real_wait(self, timeout)
        except subprocess.TimeoutExpired:
            waits.append((timeout, True))
            raise
        finally:
            waiting = False
        waits.append((timeout, False))
        return code

    def sleep(seconds: float) -> None:
        # Popen.wait with a timeout polls the exit in short sleeps of its own
        # until the exit is reaped: that is waiting on the exit, not a fixed wait.
        if not waiting:
            sleeps.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(subprocess.Popen, "wait", wait)
    monkeypatch.setattr(time, "sleep", sleep)
    engine = ProcessEngine(f"{sys.executable} {FAULTY} crash 3", timeout=5)
    with pytest.raises(EngineFault, match="exit code 3"):
        replay(engine)
    assert engine.process is None
    assert waits and not any(ran_out for _, ran_out in waits), waits
    assert not sleeps, sleeps


SINK = Path(__file__).parent / "engines" / "logging_sink.py"


def sink_scenario(events: list[dict[str, object]]) -> scenario_format.Scenario:
    constants = {**random_scenario(6, 0).constants, "jobs": 1}
    return replace(random_scenario(6, 0), constants=constants, events=events)


def test_lines_reach_the_engine_before_an_answer_is_awaited(tmp_path: Path) -> None:
    """The engine works on gathered lines while the bridge checks answers:
    BATCH lines sent are written without any answer being asked for (a
    pipe takes these few short lines at once, so nothing is left to write),
    and the engine reads them all, in order."""
    log = tmp_path / "read.log"
    engine = ProcessEngine(f"{sys.executable} {SINK} {log} 0", timeout=60)
    events = [{"event": "message", "kind": "user", "text": f"m{k}"} for k in range(BATCH)]
    scenario = sink_scenario(events)
    engine.start(scenario)
    try:
        for position, event in enumerate(events):
            engine.send({**event, "at": position})
        assert not engine.outgoing
        assert all(engine.receive()["size"] == 0 for _ in events)
        read = log.read_text().splitlines()
        assert [json.loads(line)["at"] for line in read[1:]] == list(range(BATCH))
    finally:
        engine.close()


@pytest.mark.parametrize("pad", [3_000_000, 5_000_000])
def test_an_answer_may_be_as_long_as_the_texts_sent_allow(tmp_path: Path, pad: int) -> None:
    """bridge/PROTOCOL.md, "Faults": an answer line longer than 6 x (4 + 2 x
    JOBS) x (the text bytes sent + 64 per event) + 1 MiB is a fault; one
    within it is an answer, also when it is over 1 MiB."""
    size = 100_000
    bound = 6 * (4 + 2 * 1) * (size + 64) + (1 << 20)
    assert bound == 4_650_880
    engine = ProcessEngine(f"{sys.executable} {SINK} {tmp_path / 'read.log'} {pad}", timeout=60)
    event = {"event": "message", "kind": "user", "size": size}
    engine.start(sink_scenario([event]))
    try:
        engine.send({**event, "at": 0})
        if len(json.dumps({"x-pad": "p" * pad})) < bound:
            assert len(engine.receive()["x-pad"]) == pad
        else:
            with pytest.raises(EngineFault, match=r"longer than any answer \(4,650,880 bytes\)"):
                engine.receive()
    finally:
        engine.close()
