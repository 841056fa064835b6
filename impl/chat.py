"""The library API: one chat in one directory (SPEC 1-6).

`Chat` joins the planner and the store: every event is applied to the
planner and logged before the call returns, so a message is acknowledged
only once it is on disk. One thread (or one asyncio loop) uses a Chat.

A closed Chat refuses every call (Closed), and so does one whose write
failed (WriteFailed, then Closed): its memory may hold what the disk does
not, so it must be closed and its directory opened again, which folds the
last acknowledged state back from the logs. A Chat opened with
`read_only=True` answers what a turn reads and refuses every call that would
change it (ReadOnly). `close` and `unsubscribe` are always allowed, so that
cleaning up after a closed chat never fails. Listeners are called after
every change, and also after a write that failed, so that a waiting turn
(which then gets Closed) and the compactor (which then stops) learn of it
at once. See `impl/store.py` for what is stored and how a directory is
opened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Planner, check_message
from impl.profile import Profile
from impl.store import Clock, Store, local_now
from impl.tree import Node


def clip(text: str, cap: int) -> str:
    """Tool output clipped to at most `cap` characters: head and tail kept,
    with a marker saying how many characters were cut between them (SPEC 7)."""
    if len(text) <= cap:
        return text
    cut = len(text) - cap
    while True:
        marker = f"\n[... {cut} characters cut ...]\n"
        keep = cap - len(marker)
        if len(text) - keep == cut:
            break
        cut = len(text) - keep
    head = (keep + 1) // 2
    return text[:head] + marker + text[len(text) - (keep - head) :]


def split(text: str, most: int) -> list[str]:
    """Text cut into consecutive pieces of at most `most` characters, never
    between `\\r` and `\\n`; joined they give the text back (SPEC 1)."""
    pieces: list[str] = []
    start = 0
    while len(text) - start > most:
        stop = start + most
        if text[stop - 1] == "\r" and text[stop] == "\n" and most > 1:
            stop -= 1
        pieces.append(text[start:stop])
        start = stop
    pieces.append(text[start:])
    return pieces


class Chat:
    """One chat, owned by this process while open (SPEC 1-6)."""

    def __init__(self, store: Store, planner: Planner, dates: list[str]) -> None:
        self.store = store
        self.planner = planner
        self.constants = planner.constants
        self._dates = dates
        self._listeners: list[Callable[[], None]] = []

    @classmethod
    def open(
        cls,
        path: Path | str,
        constants: Constants | None = None,
        clock: Clock = local_now,
        *,
        read_only: bool = False,
        profile: Profile | None = None,
    ) -> Chat:
        """Open (or create) the chat directory at `path`, taking its lock and
        folding its logs (SPEC 6). Without `constants` or `profile`, those
        the chat was made with (a new chat: SPEC's). Raises Locked when
        another live process owns it and StoreError naming file, line and
        problem when it cannot be opened (impl/store.py says which constants
        must match, and what `read_only` does)."""
        store = Store(path, clock, read_only)
        try:
            planner, dates = store.load(constants, profile)
        except BaseException:
            store.close()
            raise
        return cls(store, planner, dates)

    def close(self) -> None:
        """Release the chat directory; every later call is refused (SPEC 6)."""
        self.store.close()

    def _reading(self) -> Planner:
        """The planner, unless the chat is closed or a write failed."""
        self.store.check(write=False)
        return self.planner

    def _writing(self) -> Planner:
        """The planner, unless `_reading` refuses or the chat is read only."""
        self.store.check(write=True)
        return self.planner

    def __enter__(self) -> Chat:
        self._reading()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every change of the chat (for the compactor)."""
        self._reading()
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        """Stop calling `listener`."""
        self._listeners.remove(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    # Messages.

    def append(self, kind: str, text: str) -> list[int]:
        """Log `text` as one or more messages of `kind`; returns their ids
        (SPEC 1). Tool output is clipped to `tool_cap` characters, head and
        tail kept (SPEC 7); any other text longer than `split` characters
        goes whole into consecutive messages, one acknowledgement: after a
        crash they are all in the chat or none is (impl/store.py)."""
        self._writing()
        check_message(kind, text, self.planner.profile.kinds)
        c = self.constants
        pieces = [clip(text, c.tool_cap)] if kind == "tool" else split(text, c.split)
        ids = []
        parts = len(pieces)
        try:
            for k, piece in enumerate(pieces):
                ids.append(self._message(kind, piece, (k, parts) if parts > 1 else None))
        finally:
            self._changed()
        return ids

    def _message(self, kind: str, text: str, part: tuple[int, int] | None) -> int:
        p, store = self.planner, self.store
        i = p.count
        self._dates.append(store.log_message(i, kind, text, part))
        store.log_nodes(p, p.admit(kind, text))
        if p.chat_batch():
            store.log_batch(p, compaction=False)
        if p.cview_batch():
            store.log_batch(p, compaction=True)
        store.log_nodes(p, p.build_free())
        store.save_view(p)
        return i

    # What a turn reads.

    def render(self) -> str:
        """The chat view rendered (SPEC 3)."""
        return self._reading().render()

    def view(self) -> tuple[Node, ...]:
        """The chat view's lines, oldest first (SPEC 3)."""
        return self._reading().view()

    def compaction_view(self) -> tuple[Node, ...]:
        """The compaction view's lines, oldest first (SPEC 3.4)."""
        return self._reading().compaction_view()

    def context(self, level: int, index: int) -> str:
        """The rendered context a call for node `(level, index)` reads (SPEC 3.4)."""
        return self._reading().render_context((level, index))

    def source(self, level: int, index: int) -> str:
        """What a call for node `(level, index)` summarizes (SPEC 2)."""
        return self._reading().source((level, index))

    def zoom(self, id: int, n: int) -> str:
        """Open a part of the chat: `zoom(id, 1)` is message `id`'s line whole;
        for a larger power of two `n`, node `id+n`'s two halves rendered like
        the view. Refused (rule `zoom`) unless `id` is a multiple of `n` and
        the messages are all logged (SPEC 3.5; the planner's `zoom`)."""
        return self._reading().zoom(id, n)

    def date(self, id: int) -> str:
        """When message `id` was logged, ISO 8601 with its timezone (SPEC 6)."""
        self._reading()
        if not 0 <= id < len(self._dates):
            raise Refused("date", f"no message {id}")
        return self._dates[id]

    # The compactor's side (SPEC 4).

    def candidates(self) -> tuple[Node, ...]:
        """The calls that may start now, in queue order (SPEC 4)."""
        return self._reading().candidates()

    def running(self) -> list[Node]:
        """The calls in flight (SPEC 4); a waiting turn drops the merges."""
        return self._reading().running()

    def claim(self, level: int, index: int) -> None:
        """Start a call for node `(level, index)` (SPEC 4); Refused names the
        rule it breaks. Not logged: a restart forgets running calls."""
        self._writing().start((level, index))

    def put(self, level: int, index: int, line: str) -> None:
        """A call ends with its line of 1 to NODE bytes: the node is built and
        logged, with the free parents it completes (SPEC 2, 4, 5, 6)."""
        p, store = self._writing(), self.store
        outcome = p.end((level, index), line)
        try:
            store.log_nodes(p, outcome.built)
            # Under `batches: builds` (SPEC 10) the end may have run batches.
            if outcome.chat_batch:
                store.log_batch(p, compaction=False)
            if outcome.cview_batch:
                store.log_batch(p, compaction=True)
            if outcome.chat_batch:
                store.save_view(p)
        finally:
            self._changed()

    def fail(self, level: int, index: int) -> None:
        """A call failed: logged; the FAILURES-th failure builds the node from
        its source cut to NODE bytes (SPEC 4, 6)."""
        p = self._writing()
        outcome = p.fail((level, index))
        try:
            self.store.log_failure(p, (level, index))
            self.store.log_nodes(p, outcome.built)
        finally:
            self._changed()

    def retry(self) -> None:
        """RETRY has passed: failed nodes may start again (SPEC 4); the free
        leaves that lets the queue offer are built and logged (SPEC 10)."""
        p = self._writing()
        try:
            self.store.log_nodes(p, p.retry())
        finally:
            self._changed()

    async def wait_settled(self, timeout: float | None = None) -> str:
        """A turn waits until every view line is built, at most `timeout`
        seconds (SETTLE_TIMEOUT by default), and returns the view it reads:
        settled, or with unbuilt lines showing their message cut to NODE
        bytes (SPEC 4). Running merge calls stop while it waits. Closed
        when the chat was closed, or a write failed, before it settled."""
        p = self._writing()
        self.store.log_nodes(p, p.wait())
        changed = asyncio.Event()
        self.subscribe(changed.set)
        self._changed()
        limit = self.constants.settle_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                while not p.settled():
                    changed.clear()
                    await changed.wait()
                    self._reading()
        except TimeoutError:
            self._reading()
            view = p.render_timed_out()
            p.timeout()
        except BaseException:
            p.timeout()  # cancelled: the turn is gone, so is its wait
            raise
        else:
            view = p.render()
            p.settle()
        finally:
            self.unsubscribe(changed.set)
            self._changed()
        return view
