"""The compactor: runs compaction calls through an injected summarizer
(SPEC 4, 5).

`summarize(conversation)` is any async function taking a list of
`{"role": "user" | "assistant", "content": str}` and returning the model's
reply; an exception from it is a failed call. The compactor starts the
chat's candidates as they appear, at most JOBS at once, asks each node's
line in one conversation with "too long" follow-ups (SPEC 5), ticks RETRY,
and cancels the merge calls that a waiting turn stops.

The compactor stops, cancelling its calls, when the chat refuses a call
(StoreError): the chat was closed, or one of its writes failed (a full
disk). It raises nothing then: the chat refuses every call from then on,
so its owner's next call is the one that says why (Closed, naming the
failed write), and a reopen finds every acknowledged message.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from impl.chat import Chat
from impl.errors import StoreError
from impl.text import check_utf8, cut, size
from impl.tree import Node, end, first, name

Summarize = Callable[[list[dict[str, str]]], Awaitable[str]]


def ruler(node_bytes: int) -> str:
    """The ruler a task carries: NODE dashes, the longest line allowed (SPEC 5)."""
    return "-" * node_bytes


def task(node: Node, context: str, source: str, node_bytes: int) -> str:
    """The first request of a node's call: its context, what to write, the
    ruler, then the source last (SPEC 3.4, 5)."""
    if node[0] == 0:
        what = f"message {node[1]} below in one line"
    else:
        what = (
            f"the two lines below (messages {first(node)} to {end(node) - 1}, "
            f"line {name(node)}) merged into one line"
        )
    return (
        f"{context}\n\nCompaction: write {what}, of at most {node_bytes} bytes, as a "
        f"memory for the chat above. Keep names, numbers, decisions and open questions. "
        f"Reply with the line only. It must be no longer than this ruler:\n"
        f"{ruler(node_bytes)}\n{source}"
    )


def too_long(reply: str, node_bytes: int) -> str:
    """The follow-up to a reply over NODE bytes: the reply cut at NODE bytes,
    the cut marked (SPEC 5)."""
    kept = cut(reply, node_bytes)
    return (
        f"Too long: that line is {size(reply)} bytes and the limit is {node_bytes}. "
        f"Cut at {node_bytes} bytes it would read up to the mark:\n"
        f"{kept}[CUT HERE]{reply[len(kept) :]}\nWrite it again, shorter."
    )


class Compactor:
    """Drives one chat's compaction calls on the running asyncio loop (SPEC 4)."""

    def __init__(self, chat: Chat, summarize: Summarize) -> None:
        self.chat = chat
        self.summarize = summarize
        self._tasks: dict[Node, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()

    async def run(self) -> None:
        """Start candidates whenever the chat changes, tick RETRY, until
        cancelled or until the chat refuses a call (module doc)."""
        self.chat.subscribe(self._wake.set)
        try:
            while True:
                await self._reconcile()
                for node in self.chat.candidates():
                    self.chat.claim(*node)
                    self._tasks[node] = asyncio.create_task(self._call(node))
                self._wake.clear()
                try:
                    async with asyncio.timeout(self.chat.constants.retry):
                        await self._wake.wait()
                except TimeoutError:
                    self.chat.retry()
        except StoreError:
            return  # the chat's own next call says why (module doc)
        finally:
            self.chat.unsubscribe(self._wake.set)
            await self._cancel(list(self._tasks.values()))

    async def _reconcile(self) -> None:
        """Cancel, and wait out, calls the chat no longer counts as running
        (merges stopped by a waiting turn), so no more than JOBS are in flight."""
        running = set(self.chat.running())
        stopped = [t for n, t in self._tasks.items() if n not in running]
        await self._cancel(stopped)

    @staticmethod
    async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
        for stopped in tasks:
            stopped.cancel()
        for stopped in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await stopped

    async def _call(self, node: Node) -> None:
        """One compaction call: replies until the line is chosen (SPEC 5),
        then the node is built; an exception from the summarizer fails the
        call (SPEC 4). A StoreError from the chat ends it quietly: `run`
        then stops (module doc)."""
        chat, c = self.chat, self.chat.constants
        try:
            source = chat.source(*node)
            conversation = [
                {"role": "user", "content": task(node, chat.context(*node), source, c.node)}
            ]
            chooser = chat.planner.chooser(source)
            try:
                while True:
                    reply = await self.summarize(list(conversation))
                    check_utf8(reply, "the reply")
                    line = chooser.offer(reply)
                    if line is not None:
                        break
                    conversation += [
                        {"role": "assistant", "content": reply},
                        {"role": "user", "content": too_long(reply.strip(chooser.space), c.node)},
                    ]
            except Exception:
                if node in chat.running():
                    chat.fail(*node)
                return
            if node in chat.running():
                chat.put(*node, line)
        except StoreError:
            return
        finally:
            if self._tasks.get(node) is asyncio.current_task():
                del self._tasks[node]
            self._wake.set()
