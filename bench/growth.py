"""`python -m bench.growth [MB ...]`: the model through a chat of 5,000-byte
messages and no compaction call, the issue's 50 MB chat: nothing is ever
built, so nothing merges, the chat view only grows (shrinking once over
CEILING) and every unbuilt leaf waits in the queue. After every message the
model is observed as the bridge observes it (bench.corpus.model_observe).
Prints, as JSON, the seconds at which each prefix (in MB of message text, 10^6
bytes) was replayed, in one run: their growth shows whether a message costs
more as the chat grows."""

from __future__ import annotations

import argparse
import json
import time

from bench.corpus import model_observe
from model import machine
from model.events import Message
from scenarios.arguments import positive_int
from scenarios.format import sized_text

MESSAGE_BYTES = 5_000
PREFIXES = (10, 20, 30, 50)


def replay(prefixes: list[int]) -> dict[int, float]:
    """Seconds from the empty chat to each prefix of `prefixes` MB."""
    marks = {mb * 10**6 // MESSAGE_BYTES: mb for mb in prefixes}
    texts = [sized_text(MESSAGE_BYTES, at) for at in range(max(marks))]
    state = machine.initial()
    seconds: dict[int, float] = {}
    began = time.perf_counter()
    for at, text in enumerate(texts, 1):
        state = machine.step(state, Message("user", text))
        model_observe(state, False)
        if at in marks:
            seconds[marks[at]] = time.perf_counter() - began
    return seconds


def main(argv: list[str] | None = None) -> None:
    """Replay the prefixes and print their seconds."""
    parser = argparse.ArgumentParser(prog="python -m bench.growth", description=__doc__)
    parser.add_argument("mb", nargs="*", type=positive_int, metavar="MB", help="prefixes in MB")
    prefixes = sorted(set(parser.parse_args(argv).mb or PREFIXES))
    print(json.dumps({"message_bytes": MESSAGE_BYTES, "seconds": replay(prefixes)}))


if __name__ == "__main__":
    main()
