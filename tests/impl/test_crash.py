"""Crash safety (SPEC 6): a child appending and building is killed with
SIGKILL at random points; every restart keeps every acknowledged message,
once, and shows the model's view for the logged history."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

from impl.chat import Chat
from impl.constants import Constants
from model import machine
from tests.impl.crash_child import CONSTANTS, text_of
from tests.impl.replay import as_pairs, model_state

ROUNDS = 16


def run_and_kill(path: Path, seed: int, rng: random.Random) -> int:
    """Run the child until it has acknowledged a few messages, kill it at a
    random moment after that; returns how many messages it acknowledged in all."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.impl.crash_child", str(path), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked = -1
    for _ in range(rng.randrange(1, 40)):
        line = child.stdout.readline()
        assert line.startswith("ack "), line
        acked = int(line.split()[1])
    time.sleep(rng.random() * 0.01)
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate()
    for line in rest.splitlines():
        acked = int(line.split()[1])
    return acked + 1


def test_sigkill_at_random_points_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261008)
    acked = 0
    for round_ in range(ROUNDS):
        acked = max(acked, run_and_kill(tmp_path, round_, rng))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torn lines and the dead owner's lock
            chat = Chat.open(tmp_path, Constants(**CONSTANTS))
        try:
            count = chat.planner.count
            assert count >= acked
            for i in range(count):
                assert chat.planner.tree.messages[i] == ("user", text_of(i)), i
            model = model_state(tmp_path, CONSTANTS)
            assert chat.view() == as_pairs(model.chat.view)
            assert chat.compaction_view() == as_pairs(model.compaction.view)
            assert chat.planner.shrinking() == model.chat.shrinking
            assert chat.render() == machine.render(model)
        finally:
            chat.close()
    assert acked > ROUNDS
