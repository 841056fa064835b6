"""The compactor (SPEC 4, 5): the JOBS bound, failures, and a waiting turn
stopping merge calls."""

from __future__ import annotations

import asyncio
import gc
import os
from dataclasses import replace
from pathlib import Path

import pytest

from impl.chat import Chat
from impl.compactor import Compactor, task, too_long
from impl.errors import Closed
from impl.fake import FakeSummarizer
from impl.profile import Profile
from tests.impl.helpers import SMALL, Clock, FullDisk, reopen


def is_merge(conversation: list[dict[str, str]]) -> bool:
    return "merged into one line" in conversation[0]["content"]


class Recorder:
    """The fake summarizer, counting calls in flight and failing every fifth reply."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.fake = FakeSummarizer(chat.constants.node)
        self.in_flight = 0
        self.most = 0
        self.replies = 0
        self.merges_while_waiting = 0

    async def __call__(self, conversation: list[dict[str, str]]) -> str:
        if is_merge(conversation) and self.chat.planner.queue.waiting:
            self.merges_while_waiting += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            self.replies += 1
            if self.replies % 5 == 0:
                raise RuntimeError("the model is down")
            return await self.fake(conversation)
        finally:
            self.in_flight -= 1


async def idle(chat: Chat) -> None:
    """Yield until every node that needs a call is built."""
    queue = chat.planner.queue
    for _ in range(10_000):
        if not (queue.ready or queue.unbuilt or queue.running):
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the compactor never went idle")


def test_at_most_jobs_calls_run_and_everything_gets_built(tmp_path: Path) -> None:
    async def main() -> None:
        with reopen(tmp_path, replace(SMALL, jobs=2, retry=0.001)) as chat:
            recorder = Recorder(chat)
            compactor = asyncio.create_task(Compactor(chat, recorder).run())
            for t in range(60):
                chat.append("user", f"{t} " + "word " * (t % 30))
                await asyncio.sleep(0)
                if t % 20 == 19:
                    view = await chat.wait_settled(timeout=60)
                    assert "(not summarized yet" not in view
            await idle(chat)
            compactor.cancel()
            await asyncio.gather(compactor, return_exceptions=True)
            assert recorder.most == 2
            assert recorder.replies >= 40
            assert recorder.merges_while_waiting == 0

    asyncio.run(main())


def test_a_waiting_turn_stops_merge_calls_and_gets_its_leaves(tmp_path: Path) -> None:
    async def main() -> None:
        with reopen(tmp_path, replace(SMALL, retry=60)) as chat:
            fake = FakeSummarizer(chat.constants.node)
            gate = asyncio.Event()
            stopped: list[bool] = []
            merge_calls_while_waiting = 0
            claim = chat.claim

            def counting_claim(level: int, index: int) -> None:
                # Counted when the call is claimed: its coroutine may first run
                # only after a wait began, and the wait then cancels it.
                nonlocal merge_calls_while_waiting
                if level > 0 and chat.planner.queue.waiting:
                    merge_calls_while_waiting += 1
                claim(level, index)

            chat.claim = counting_claim  # type: ignore[method-assign]

            async def summarize(conversation: list[dict[str, str]]) -> str:
                if is_merge(conversation):
                    try:
                        await gate.wait()
                    except asyncio.CancelledError:
                        stopped.append(True)
                        raise
                return await fake(conversation)

            compactor = asyncio.create_task(Compactor(chat, summarize).run())
            for t in range(6):
                chat.append("user", f"{t} " + "long words " * 8)
            while not any(node[0] > 0 for node in chat.running()):
                await asyncio.sleep(0.001)
            chat.append("user", "one more " * 10)
            view = await chat.wait_settled(timeout=60)
            assert stopped, "the running merge call was not stopped"
            assert merge_calls_while_waiting == 0
            assert "(not summarized yet" not in view
            gate.set()
            await idle(chat)
            compactor.cancel()
            await asyncio.gather(compactor, return_exceptions=True)

    asyncio.run(main())


def test_a_too_long_reply_gets_a_follow_up_showing_the_cut(tmp_path: Path) -> None:
    assert too_long("abcdefgh", 4).count("abcd[CUT HERE]efgh") == 1
    text = task((1, 3), "<chat>\n</chat>", "left\nright", 8)
    assert "\n--------\nleft\nright" in text and "messages 6 to 7" in text

    async def main() -> None:
        with reopen(tmp_path) as chat:
            seen: list[list[dict[str, str]]] = []

            async def summarize(conversation: list[dict[str, str]]) -> str:
                seen.append(conversation)
                return "x" * 100 if len(conversation) == 1 else "short line"

            compactor = asyncio.create_task(Compactor(chat, summarize).run())
            chat.append("user", "y" * 100)
            assert await chat.wait_settled(timeout=60) == "<chat>\n0+1|short line\n</chat>"
            compactor.cancel()
            await asyncio.gather(compactor, return_exceptions=True)
            assert [len(c) for c in seen] == [1, 3]
            assert seen[1][1] == {"role": "assistant", "content": "x" * 100}
            assert "x" * 64 + "[CUT HERE]" + "x" * 36 in seen[1][2]["content"]

    asyncio.run(main())


def test_a_failed_write_stops_the_compactor_and_the_owner_s_next_call_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A put that hits a full disk inside a compaction call: no task dies with
    an unretrieved exception, the compactor stops, a waiting turn and the
    owner's next call get Closed naming the failed write, and a reopen finds
    every acknowledged message (SPEC 6)."""
    disk = FullDisk()
    monkeypatch.setattr(os, "write", disk)
    texts = [f"message {t} " + "words " * 20 for t in range(3)]  # each a leaf call

    async def main() -> None:
        loop_errors: list[dict[str, object]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: loop_errors.append(ctx))
        gate = asyncio.Event()

        async def summarize(conversation: list[dict[str, str]]) -> str:
            await gate.wait()
            return "a line"

        chat = reopen(tmp_path, replace(SMALL, retry=60))
        compactor = asyncio.create_task(Compactor(chat, summarize).run())
        for text in texts:
            chat.append("user", text)
        while len(chat.running()) < 3:
            await asyncio.sleep(0.001)
        turn = asyncio.create_task(chat.wait_settled(timeout=60))
        await asyncio.sleep(0.01)
        disk.room = 0
        gate.set()
        async with asyncio.timeout(5):  # far below the turn's 60 s and RETRY
            assert await compactor is None
            with pytest.raises(Closed, match=r"a write failed \(.*tree/.*No space left on device"):
                await turn
        with pytest.raises(Closed, match=r"a write failed \(.*No space left on device"):
            chat.append("user", "one more")
        chat.close()
        gc.collect()
        assert loop_errors == []

    asyncio.run(main())
    disk.room = None
    with reopen(tmp_path) as chat:
        assert [chat.zoom(i, 1) for i in range(chat.planner.count)] == [
            "user: " + text for text in texts
        ]


def test_an_empty_reply_fails_the_call_under_empty_reply_fails(tmp_path: Path) -> None:
    """SPEC 10, `empty_reply`: the first reply of every call is empty. SPEC's
    chooser ends the tries there and cuts the source; under `fails` the call
    fails, the node is tried again after RETRY, and the second call's line
    is installed."""

    async def main(profile: Profile, folder: Path) -> tuple[str | None, int]:
        constants = replace(SMALL, retry=0.001)
        with Chat.open(folder, constants, Clock(), profile=profile) as chat:
            asked: list[str] = []

            async def summarize(conversation: list[dict[str, str]]) -> str:
                asked.append(conversation[0]["content"])
                return "" if asked.count(conversation[0]["content"]) == 1 else "a summary"

            compactor = asyncio.create_task(Compactor(chat, summarize).run())
            chat.append("user", "long words " * 8)
            await idle(chat)
            compactor.cancel()
            await asyncio.gather(compactor, return_exceptions=True)
            return chat.planner.text((0, 0)), len(asked)

    line = "user: " + "long words " * 8
    assert asyncio.run(main(Profile(), tmp_path / "spec")) == (line[:64], 1)
    fails = Profile(empty_reply="fails")
    assert asyncio.run(main(fails, tmp_path / "fails")) == ("a summary", 2)
