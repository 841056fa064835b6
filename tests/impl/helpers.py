"""Shared test helpers: small constants, a fixed clock, a scripted history."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from impl.chat import Chat
from impl.constants import Constants

SMALL = Constants(node=64, ceiling=600, floor=250, cceiling=300, cfloor=100, jobs=3, ahead=3)


class Clock:
    """A clock that moves `step` per reading, from 2026-10-08 22:00 UTC."""

    def __init__(self, step: timedelta = timedelta(seconds=1)) -> None:
        self.now = datetime(2026, 10, 8, 22, 0, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def drive(chat: Chat, steps: int, seed: int, build: bool = True) -> None:
    """Append messages of 0..~200 bytes; with `build`, end most candidate calls."""
    rng = random.Random(seed)
    for _ in range(steps):
        chat.append("user", "é" * rng.randrange(100))
        if build:
            for node in chat.candidates():
                chat.claim(*node)
                if rng.random() < 0.8:
                    chat.put(*node, f"{node}" + "s" * rng.randrange(30))


def reopen(path: Path, constants: Constants = SMALL) -> Chat:
    return Chat.open(path, constants, Clock())
