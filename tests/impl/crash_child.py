"""A process that appends and builds until it is killed (tests/impl/test_crash.py).

`python -m tests.impl.crash_child DIR SEED`: opens the chat, then forever
appends message T with `text_of(T)`, prints `ack T` once append returned,
and starts, ends or fails a few calls.

`python -m tests.impl.crash_child DIR SEED split`: the same, but each append
is `long_text_of(T)`, which the chat splits into PIECES messages (SPLIT
characters each), and `ack T` names the first of them.
"""

from __future__ import annotations

import random
import sys

from impl.chat import Chat
from impl.constants import Constants

CONSTANTS = dict(
    node=64, ceiling=900, floor=300, cceiling=400, cfloor=100, jobs=3, ahead=3, failures=2
)


def text_of(i: int) -> str:
    """Message i's text: its id, then 0 to ~250 bytes of mixed characters."""
    rng = random.Random(i)
    return f"{i}:" + "".join(
        rng.choice(["ab ", "é", "中", "\n", "z"]) for _ in range(rng.randrange(90))
    )


SPLIT = 64
PIECES = 40


def long_text_of(i: int) -> str:
    """The text of an append starting at message i: PIECES * SPLIT characters."""
    rng = random.Random(i)
    return "".join(rng.choice("ab é中z\n") for _ in range(PIECES * SPLIT))


def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    long = sys.argv[3:] == ["split"]
    rng = random.Random(seed)
    chat = Chat.open(path, Constants(**CONSTANTS, split=SPLIT) if long else Constants(**CONSTANTS))
    while True:
        t = chat.planner.count
        chat.append("user", long_text_of(t) if long else text_of(t))
        print(f"ack {t}", flush=True)
        for node in chat.candidates()[: rng.randrange(3)]:
            chat.claim(*node)
        for node in chat.running():
            roll = rng.random()
            if roll < 0.6:
                chat.put(*node, f"line {node} " + "x" * rng.randrange(40))
            elif roll < 0.75:
                chat.fail(*node)


if __name__ == "__main__":
    main()
