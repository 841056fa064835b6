"""`python -m impl.example`: a few hundred messages through the fake
summarizer in a temporary chat directory, then the view (SPEC 3, 4, 5)."""

from __future__ import annotations

import argparse
import asyncio
import tempfile

from impl.chat import Chat
from impl.compactor import Compactor
from impl.constants import Constants
from impl.fake import FakeSummarizer

CONSTANTS = Constants(ceiling=12_000, floor=6_000, cceiling=4_000, cfloor=2_000)
"""SPEC 7 sizes scaled down so that a few hundred messages show the sawtooth."""


async def run() -> None:
    """The example itself."""
    with tempfile.TemporaryDirectory() as path, Chat.open(path, CONSTANTS) as chat:
        compactor = asyncio.create_task(Compactor(chat, FakeSummarizer(CONSTANTS.node)).run())
        for t in range(300):
            kind = ("user", "unii", "tool")[t % 3]
            chat.append(kind, f"message {t}: " + "lorem ipsum dolor sit amet " * (t % 40))
            if t % 25 == 24:
                await chat.wait_settled()
            await asyncio.sleep(0)
        view = await chat.wait_settled()
        compactor.cancel()
        await asyncio.gather(compactor, return_exceptions=True)
        print(view)
        print(f"T={chat.planner.count} lines={len(chat.view())} size={chat.planner.size()}")


def main(argv: list[str] | None = None) -> None:
    """Run the example; it takes no arguments (`--help` says so)."""
    argparse.ArgumentParser(prog="python -m impl.example", description=__doc__).parse_args(argv)
    asyncio.run(run())


if __name__ == "__main__":
    main()
