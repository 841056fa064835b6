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
from tests.impl.crash_child import CONSTANTS, PIECES, SPLIT, long_text_of, text_of
from tests.impl.replay import as_pairs, model_state

ROUNDS = 16


def run_and_kill(
    path: Path, seed: int, rng: random.Random, *mode: str, most: int = 40, pause: float = 0.01
) -> int:
    """Run the child until it has acknowledged a few appends, kill it at a
    random moment after that (within `pause` seconds); returns the first
    message after those it acknowledged."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.impl.crash_child", str(path), str(seed), *mode],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    acked = -1
    for _ in range(rng.randrange(1, most)):
        line = child.stdout.readline()
        assert line.startswith("ack "), line
        acked = int(line.split()[1])
    time.sleep(rng.random() * pause)
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate()
    for line in rest.splitlines():
        acked = int(line.split()[1])
    return acked + (PIECES if mode else 1)


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


def test_sigkill_inside_a_split_append_keeps_all_of_it_or_none(tmp_path: Path) -> None:
    """An append split into PIECES messages is one acknowledgement: killed
    while it is being written, the restarted chat holds every one of its
    messages or none (impl/store.py, "Split appends")."""
    rng = random.Random(20261201)
    acked = 0
    for round_ in range(6):
        acked = max(acked, run_and_kill(tmp_path, round_, rng, "split", most=3, pause=0.3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the append cut short and the dead owner's lock
            chat = Chat.open(tmp_path, Constants(**CONSTANTS, split=SPLIT))
        try:
            count = chat.planner.count
            assert count % PIECES == 0, f"round {round_}: {count} messages, a part of an append"
            assert count >= acked
            for start in range(0, count, PIECES):
                pieces = [chat.planner.tree.messages[start + k][1] for k in range(PIECES)]
                assert "".join(pieces) == long_text_of(start), start
            model = model_state(tmp_path, CONSTANTS)
            assert chat.view() == as_pairs(model.chat.view)
            assert chat.render() == machine.render(model)
        finally:
            chat.close()
    assert acked >= PIECES
