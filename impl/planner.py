"""The planner: the chat as a state machine over events, and what it shows
(SPEC 1-4). It mirrors the reference model event for event, with machine
integers and incremental structures; a refused event changes nothing.

The events are `message`, `start`, `end`, `fail`, `wait`, `settle`,
`timeout` and `retry`. `admit`, `chat_batch`, `cview_batch`, `fold_batch`, `fold_build` and
`fold_failure` split a message and replay a log for storage (SPEC 6).
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from typing import NoReturn

from impl.constants import KINDS, PLACEHOLDER, Constants
from impl.errors import Refused
from impl.line import EmptyReply, LineChooser
from impl.profile import Profile
from impl.queue import Queue
from impl.render import EMPTY, render_lines, render_rows, row
from impl.text import WHITE_SPACE, check_utf8, cut, size
from impl.tree import Node, Tree, end, halves, name
from impl.view import View

Observation = tuple[
    tuple[Node, ...],
    int,
    bool,
    tuple[Node, ...],
    tuple[Node, ...],
    tuple[Node, ...],
    tuple[Node, ...],
    tuple[Node, ...],
]
"""`Planner.observe`: view, size, shrinking, merges, compaction view,
compaction merges, candidates, candidates while a turn waits."""


class Outcome:
    """What an event did that storage logs (SPEC 6): the nodes built, in
    order, and which batches ran. A plain class, not a NamedTuple: the C
    build makes one at every message and call outcome, and a NamedTuple is
    made by an interpreted `__new__` (ten times the cost of this)."""

    def __init__(
        self, built: list[Node], chat_batch: bool = False, cview_batch: bool = False
    ) -> None:
        self.built = built
        self.chat_batch = chat_batch
        self.cview_batch = cview_batch


def check_message(kind: str, text: str, kinds: tuple[str, ...] = KINDS) -> int:
    """Refuse a message of a kind not among `kinds` (SPEC 1, or the profile's,
    SPEC 10) or with no UTF-8 form; returns the byte size of its text."""
    if kind not in kinds:
        raise Refused("kind", f"kind {kind!r} is not taken; kinds are {', '.join(kinds)}")
    return check_utf8(text, "the message")


class Planner:
    """A chat's planner state: constants, profile, tree, chat view,
    compaction view and work queue (SPEC 1-4, 10)."""

    def __init__(self, constants: Constants | None = None, profile: Profile | None = None) -> None:
        self.constants = constants or Constants()
        self.profile = profile or Profile()
        self.tree = Tree(self.constants.node, self.profile.kind_words)
        self.chat = View(self.tree, self.profile.flat_sizes, self.profile.row_sizes)
        self.cview = View(self.tree, self.profile.flat_sizes, self.profile.row_sizes)
        self.queue = Queue(
            self.constants.jobs,
            # `ahead_limit: none` (SPEC 10): no count of unbuilt leaves reaches this AHEAD.
            self.constants.ahead if self.profile.ahead_limit == "bound" else sys.maxsize,
            self.profile.need_first,
            self.profile.ahead_in_wait,
            self.profile.held_takes_job,
            self.profile.merge_order == "ready",
            self.profile.retried_first,
        )
        self._word_sizes = {kind: size(self.profile.word(kind)) for kind in KINDS}
        self._empty = EMPTY[self.profile.empty_chat]
        self._space = WHITE_SPACE[self.profile.trim_set]
        self._limit = self.profile.line_limit(self.constants.node)
        # The choosers of running calls whose replies ran out under
        # `replies_out: asks`: each call's next `end` reads on with it (SPEC 5, 10).
        self.asking: dict[Node, LineChooser] = {}
        # The free leaves queued under `free_leaves: queued` (SPEC 10), not built yet.
        self.free_queued: dict[Node, None] = {}

    @property
    def count(self) -> int:
        """T, the number of messages (SPEC 1)."""
        return self.tree.count

    # Events.

    def _build(self, node: Node, line: str, line_size: int) -> list[Node]:
        if self.asking:
            self.asking.pop(node, None)
        if self.free_queued:
            self.free_queued.pop(node, None)
        made, ready = self.tree.build(node, line, line_size)
        chat, cview = self.chat, self.cview
        for done in made:
            chat.built(done)
            cview.built(done)
        self.queue.after_build(node, ready)
        return made

    def forget_batch(self) -> None:
        """A new event begins: the record of the last batch no longer
        describes it (SPEC 3.3, 4.1). Every event calls this first, refused
        or not; so does a driver that refuses an event itself."""
        self.chat.merges = self.cview.merges = ()

    def admit(self, kind: str, text: str) -> list[Node]:
        """The first half of a message (SPEC 1, 2, 3.3, 4, 10): log it, let
        held nodes try again (unless the profile retries only after RETRY),
        build its leaf when free and append the leaf to both views; returns
        the nodes built."""
        self.forget_batch()
        text_size = check_message(kind, text, self.profile.kinds)
        line_size = self._word_sizes[kind] + 2 + text_size
        if self.profile.retry_at_message:
            self.queue.release()
        leaf = (0, self.count)
        self.tree.log(kind, text)
        made: list[Node] = []
        if line_size <= self.constants.node and not self.profile.queues_free_leaves:
            made = self._build(leaf, self.tree.line(leaf[1]), line_size)
        else:
            self.queue.add_leaf(leaf[1])
            if line_size <= self.constants.node:
                self.free_queued[leaf] = None
        self.chat.append(leaf)
        self.cview.append(leaf)
        return made

    def chat_batch(self) -> bool:
        """After `admit`: the sawtooth on the chat view; whether a batch ran (SPEC 3.3)."""
        return self.chat.receive(self.constants.ceiling, self.constants.floor)

    def cview_batch(self) -> bool:
        """After `chat_batch`: when the chat view merged, the compaction view is
        the chat view merged further down to CFLOOR; otherwise its own
        sawtooth. Whether a batch ran (SPEC 3.4)."""
        c = self.constants
        if self.chat.merges:
            self.cview = self.chat.copy()
            self.cview.batch(c.cfloor)
            return True
        return self.cview.receive(c.cceiling, c.cfloor)

    def message(self, kind: str, text: str) -> Outcome:
        """A message is logged (SPEC 1, 2, 3.3, 3.4, 4); then the free leaves
        the queue offers are built (`build_free`)."""
        made = self.admit(kind, text)
        chat_ran = self.chat_batch()
        outcome = Outcome(made, chat_ran, self.cview_batch())
        if self.free_queued:
            outcome.built += self.build_free()
        return outcome

    def _halves_built(self, node: Node) -> bool:
        """Whether both halves of `node`, a merge inside the log, are built."""
        texts = self.tree.texts[node[0] - 1]
        return texts[2 * node[1]] is not None and texts[2 * node[1] + 1] is not None

    def start(self, node: Node) -> None:
        """A compaction call for `node` starts (SPEC 4). A candidate breaks no
        rule (the queue offers only nodes every rule allows), so it starts at
        once; any other node is refused, naming the first broken rule."""
        self.forget_batch()
        if node not in self.candidates():
            self._refuse_start(node)
        self.queue.start(node)

    def start_all(self) -> list[Node]:
        """Start every candidate, one after another in queue order, until none
        is left; returns them (SPEC 10, `calls: self`). It belongs to the event
        that made them candidates, so that event's batch record stays."""
        started: list[Node] = []
        while candidates := self.candidates():
            self.queue.start(candidates[0])
            started.append(candidates[0])
        return started

    def build_free(self) -> list[Node]:
        """Under `free_leaves: queued`: build each free leaf the queue offers
        with its line, with no call, one after another in queue order, and
        let a waiting turn the builds settle go on (`_resume`); returns the
        nodes built. Every event that may let the queue offer one ends with
        it (SPEC 2, 4, 10)."""
        made: list[Node] = []
        while self.free_queued:
            leaf = next((n for n in self.candidates() if n in self.free_queued), None)
            if leaf is None:
                break
            line = self.tree.line(leaf[1])
            made += self._build(leaf, line, size(line))
            self._resume()
        return made

    def _refuse_start(self, node: Node) -> NoReturn:
        """Refuse a start of `node`, which is not a candidate, naming the first
        rule it breaks in the reference model's order (SPEC 4); a node that
        breaks no other rule is behind the nodes the queue starts first."""
        c, queue, tree = self.constants, self.queue, self.tree
        if not tree.inside(node):
            raise Refused("node_exists", f"node {node} is not inside the logged messages")
        level, index = node
        if tree.texts[level][index] is not None:
            raise Refused("built_once", f"{name(node)} is already built")
        if node in queue.running:
            raise Refused("one_call_per_node", f"a call for {name(node)} is already running")
        if queue.waiting and self.profile.need_first and not self.chat.has_line(node):
            raise Refused("need_first", f"a turn waits and {name(node)} is not a line of the view")
        if queue.jobs_taken() >= c.jobs:
            raise Refused("jobs_bound", f"{c.jobs} calls already run (or wait to retry)")
        if node in queue.held:
            raise Refused(
                "retry_waits", f"{name(node)} failed; it waits for the next message or retry"
            )
        lifted = queue.waiting and not self.profile.ahead_in_wait
        if level == 0 and not lifted and queue.unbuilt_before(index) >= queue.ahead:
            raise Refused(
                "ahead_bound", f"{c.ahead} or more leaves before {name(node)} are unbuilt"
            )
        if level > 0 and not self._halves_built(node):
            raise Refused("merge_needs_halves", f"a half of {name(node)} is not built")
        raise Refused("queue_order", f"{name(node)} is behind the nodes the queue starts first")

    def _check_running(self, node: Node, rule: str) -> None:
        if node not in self.queue.running:
            raise Refused(rule, f"no call for {name(node)} is running")

    def end(self, node: Node, line: str) -> Outcome:
        """The call for `node` ends with its line (SPEC 4, 5, 10): a line
        over LINE is, under `given_line: reply`, one more reply to the
        chooser (read on from the call's conversation), and under
        `given_line: cut` cut as the chooser cuts, then installed."""
        self.forget_batch()
        self._check_running(node, "end_needs_running")
        line_size = check_utf8(line, "the line")
        if self.profile.given_line != "final":
            if self.profile.trim_lines:
                line = line.strip(self._space)
                line_size = size(line)
            if line_size > self._limit and self.profile.given_line == "reply":
                return self.end_replies(node, [line], checked=True)
            if line_size > self._limit:
                line = self.chooser(line).finish()
                line_size = -1
        return self._ended(node, self._install(node, line, line_size))

    def end_replies(self, node: Node, replies: list[str], checked: bool = False) -> Outcome:
        """The call for `node` ends with the replies it got; the line is
        chosen from them, or they fail the call, or (under `replies_out:
        asks`) they run out and the call goes on, asking for another reply:
        its next `end` reads on (SPEC 4, 5, 10). `checked`: the call and
        the replies were checked already (a given line taken as a reply)."""
        if not checked:
            self.forget_batch()
            self._check_running(node, "end_needs_running")
            for reply in replies:
                check_utf8(reply, "a reply")
        chooser = self.asking.pop(node, None) or self.chooser(self.tree.source(node))
        try:
            for reply in replies:
                line = chooser.offer(reply)
                if line is not None:
                    return self._ended(node, self._install(node, line))
        except EmptyReply:
            return self._ended(node, self._failed(node))
        if self.profile.asks_again and chooser.read < chooser.tries:
            self.asking[node] = chooser
            return Outcome([])
        return self._ended(node, self._install(node, chooser.finish()))

    def _ended(self, node: Node, outcome: Outcome) -> Outcome:
        """After a call's `end`: under `batches: builds`, when its node is
        built, the batch of a shrinking chat view, to FLOOR, and when that
        merges, the compaction view is the chat view merged further down to
        CFLOOR (SPEC 3.3, 3.4, 10); then a wait the view settles may end."""
        if self.profile.batches == "builds" and self.chat.shrinking and self.tree.is_built(node):
            c = self.constants
            self.chat.batch(c.floor)
            outcome.chat_batch = True
            if self.chat.merges:
                self.cview = self.chat.copy()
                self.cview.batch(c.cfloor)
                outcome.cview_batch = True
        return self._resumed(outcome)

    def chooser(self, source: str) -> LineChooser:
        """A line chooser for a call on `source`, with the profile's chooser
        options (SPEC 5, 10)."""
        c, p = self.constants, self.profile
        return LineChooser(
            source,
            self._limit,
            c.tries,
            self._space,
            p.empty_reply == "fails",
            p.not_shorter == "goes_on",
            p.word_cut,
            p.ellipsis,
            p.keeps_overlong,
        )

    def _install(self, node: Node, line: str, line_size: int = -1) -> Outcome:
        """Build `node` with a call's line (of `line_size` bytes when known):
        each line break a space under `flat_lines` (its size unchanged),
        stripped under `trim_lines`, where a line stripped to nothing fails
        the call; refused unless it fits: 1 to LINE bytes, or under
        `overlong: kept` 1 byte or more (SPEC 5, 10)."""
        if self.profile.flat_lines:
            line = line.replace("\r", " ").replace("\n", " ")
        if self.profile.trim_lines:
            line, line_size = line.strip(self._space), -1
            if not line:
                return self._failed(node)
        if line_size < 0:
            line_size = size(line)
        if line_size < 1 or (line_size > self._limit and not self.profile.keeps_overlong):
            fits = "1 byte or more" if self.profile.keeps_overlong else f"1 to {self._limit}"
            raise Refused("line_fits", f"a line is {fits} bytes, not {line_size}")
        return Outcome(self._build(node, line, line_size))

    def fail(self, node: Node) -> Outcome:
        """The call for `node` fails (SPEC 4)."""
        self.forget_batch()
        self._check_running(node, "fail_needs_running")
        return self._resumed(self._failed(node))

    def _failed(self, node: Node) -> Outcome:
        """A failed call is counted and its node held; under a failure cap the
        FAILURES-th failure builds the node from its source cut to NODE bytes
        (SPEC 4, 10)."""
        self.asking.pop(node, None)
        if self.queue.fail(node) < self.constants.failures or not self.profile.capped:
            return Outcome([])
        return Outcome(self.build_from_source(node))

    def wait(self) -> list[Node]:
        """A turn waits for a settled view; under `need_first` running merge
        calls stop (SPEC 4, 10). Returns the free leaves the wait let the
        queue offer, built (`build_free`: with `ahead_in_wait` off)."""
        self.forget_batch()
        if self.queue.waiting:
            raise Refused("one_wait", "a turn already waits")
        self.queue.begin_wait()
        if self.asking:  # the merge calls a wait stops forget what they read
            self.asking = {n: c for n, c in self.asking.items() if n in self.queue.running}
        return self._resumed(Outcome([])).built

    def _resumed(self, outcome: Outcome) -> Outcome:
        """After an event that may settle the view (a wait, a call's outcome):
        under `resume: self` a waiting turn goes on by itself once the view
        is settled (SPEC 4, 10); then the free leaves the queue offers are
        built, into `outcome` (`build_free`). A message never settles a view
        that was not settled: its line is a free leaf or an unbuilt one."""
        self._resume()
        if self.free_queued:
            outcome.built += self.build_free()
        return outcome

    def _resume(self) -> None:
        """Under `resume: self` a waiting turn on a settled view goes on (SPEC 4, 10)."""
        if self.profile.resume == "self" and self.queue.waiting and self.settled():
            self.queue.end_wait()

    def settle(self) -> None:
        """The waiting turn goes on with every view line built (SPEC 4)."""
        self.forget_batch()
        if not self.queue.waiting:
            raise Refused("settle_needs_wait", "no turn waits")
        if not self.settled():
            raise Refused("settle_needs_summaries", "a line of the view is not built yet")
        self.queue.end_wait()

    def timeout(self) -> None:
        """The waiting turn goes on after SETTLE_TIMEOUT, settled or not (SPEC 4)."""
        self.forget_batch()
        if not self.queue.waiting:
            raise Refused("timeout_needs_wait", "no turn waits")
        self.queue.end_wait()

    def retry(self) -> list[Node]:
        """RETRY has passed: failed nodes may be tried again (SPEC 4); returns
        the free leaves then built (`build_free`: under `held_takes_job` the
        nodes let go leave places of JOBS). A settle or a timeout ends a wait,
        which never lets the queue offer a leaf it did not."""
        self.forget_batch()
        self.queue.release()
        return self.build_free() if self.free_queued else []

    # Replaying a log (SPEC 6): logged decisions are folded, not recomputed.

    def fold_batch(self, compaction: bool, merges: list[Node], shrinking: bool) -> None:
        """Replay a logged batch of the chat view or of the compaction view
        (taken from the chat view first when the chat view merged at this
        message, SPEC 3.4). Each logged merge must be the pair the due order
        picks then; ValueError names the first one that is not."""
        if compaction and self.chat.merges:
            self.cview = self.chat.copy()
        target = self.cview if compaction else self.chat
        made: list[Node] = []
        for want in merges:
            pair = target.most_due()
            if pair is None or (pair[0] + 1, pair[1] >> 1) != want:
                got = "none" if pair is None else name((pair[0] + 1, pair[1] >> 1))
                raise ValueError(f"logged merge {name(want)} is not the most due ({got})")
            made.append(target.merge(pair))
        target.merges = tuple(made)
        target.shrinking = shrinking

    def fold_build(self, node: Node, line: str) -> list[Node]:
        """Replay a logged node (SPEC 2, 6). A node already built (by a free
        cascade) must have the same text; returns the nodes newly built."""
        built = self.tree.text(node)
        if built is not None:
            if built != line:
                raise ValueError(f"{name(node)} is logged with two different texts")
            return []
        if not self.tree.inside(node):
            raise ValueError(f"{name(node)} covers messages not logged yet")
        if node[0] > 0 and not self._halves_built(node):
            raise ValueError(f"a half of {name(node)} is not built")
        return self._build(node, line, size(line))

    def fold_failure(self, node: Node) -> None:
        """Replay a logged failed call: it counts toward FAILURES (SPEC 4, 6)."""
        if self.tree.is_built(node) or not self.tree.inside(node):
            raise ValueError(f"a failure is logged for {name(node)}, which cannot fail then")
        self.queue.count_failure(node)

    def overdue_failures(self) -> list[Node]:
        """Unbuilt nodes with FAILURES or more failed calls (SPEC 4); after a
        crash between a failure and its node they are built at load."""
        return [n for n, k in self.queue.failures.items() if k >= self.constants.failures]

    def build_from_source(self, node: Node) -> list[Node]:
        """Build `node` from its source cut to NODE bytes (SPEC 4, FAILURES)."""
        line = cut(self.tree.source(node), self.constants.node)
        return self._build(node, line, size(line))

    # What the state shows.

    def observe(self) -> Observation:
        """Everything a caller reads after an event, in one call: the chat
        view, its size, whether it is shrinking, the merges of its last
        batch, the compaction view and its last merges, the candidates and
        the candidates if a turn waited (SPEC 3, 3.3, 3.4, 4). The same
        values as the methods of each name; made of values kept ready, so
        a driver that reads them all after every event (impl/protocol.py)
        pays one call, not eight."""
        chat, cview, queue = self.chat, self.cview, self.queue
        return (
            chat.snapshot(),
            chat.size,
            chat.shrinking,
            chat.merges,
            cview.snapshot(),
            cview.merges,
            queue.candidates(queue.waiting),
            queue.candidates(True),
        )

    def running(self) -> list[Node]:
        """The calls in flight, in start order (SPEC 4)."""
        return list(self.queue.running)

    def view(self) -> tuple[Node, ...]:
        """The chat view, oldest first (SPEC 3)."""
        return self.chat.snapshot()

    def size(self) -> int:
        """The chat view's size in bytes (SPEC 3)."""
        return self.chat.size

    def digests(self) -> tuple[int, int]:
        """The protocol's digests of the chat view and the compaction view
        (impl/digest.py)."""
        return self.chat.digest, self.cview.digest

    def shrinking(self) -> bool:
        """Whether the chat view is still shrinking (SPEC 3.3)."""
        return self.chat.shrinking

    def merges(self) -> tuple[Node, ...]:
        """The parents the chat view's batch made at the last event (SPEC 3.3)."""
        return self.chat.merges

    def compaction_view(self) -> tuple[Node, ...]:
        """The compaction view, oldest first (SPEC 3.4)."""
        return self.cview.snapshot()

    def compaction_merges(self) -> tuple[Node, ...]:
        """The parents the compaction view's batch made at the last event (SPEC 3.4)."""
        return self.cview.merges

    def candidates(self) -> tuple[Node, ...]:
        """The calls that may start now, in queue order (SPEC 4)."""
        return self.queue.candidates(self.queue.waiting)

    def candidates_waiting(self) -> tuple[Node, ...]:
        """The calls that could start if a turn began to wait now (SPEC 4, need_first)."""
        return self.queue.candidates(True)

    def settled(self) -> bool:
        """Whether every line of the chat view is built (SPEC 4): the unbuilt
        lines are exactly the unbuilt leaves (see impl.queue)."""
        return not self.queue.unbuilt

    def text(self, node: Node) -> str | None:
        """A node's text, or None while unbuilt (SPEC 2)."""
        return self.tree.text(node)

    def source(self, node: Node) -> str:
        """What a node's call summarizes (SPEC 2); KeyError when it has none yet."""
        return self.tree.source(node)

    def shown(self, node: Node) -> str:
        """What a line of `node` shows: its text, or the placeholder (SPEC 3)."""
        text = self.tree.text(node)
        return PLACEHOLDER if text is None else text

    def render(self) -> str:
        """The chat view rendered, byte for byte (SPEC 3)."""
        return render_rows(self.chat.rows(None, self.cview), self._empty)

    def render_timed_out(self) -> str:
        """The chat view for a turn that stopped waiting unsettled: unbuilt
        lines show their message line cut to NODE bytes (SPEC 4)."""
        node_bytes = self.constants.node
        lines = []
        for n in self.chat.order:
            text = self.tree.text(n)
            lines.append((n, cut(self.source(n), node_bytes) if text is None else text))
        return render_lines(lines, self._empty)

    def context(self, node: Node) -> list[Node]:
        """The compaction view's lines wholly below the node's context end,
        oldest first, stopping at the first unbuilt line (SPEC 3.4). Both
        bounds are found by bisection: the lines are sorted by start and end,
        and the first unbuilt line is the oldest unbuilt leaf."""
        return self.cview.order[: self._context_lines(node)]

    def _context_lines(self, node: Node) -> int:
        """How many lines of the compaction view a node's context has (SPEC 3.4)."""
        starts = self.cview.starts
        stop = node[1] if node[0] == 0 else end(node)
        # The lines ending at or before `stop` are those starting before it,
        # less the one that straddles it, if any.
        upto = bisect_left(starts, stop)
        if upto and end(self.cview.order[upto - 1]) > stop:
            upto -= 1
        if self.queue.unbuilt:
            upto = min(upto, bisect_left(starts, self.queue.unbuilt[0][1]))
        return upto

    def render_context(self, node: Node) -> str:
        """A node's context rendered like the view (SPEC 3.4)."""
        rows = self.cview.rows(self._context_lines(node), self.chat)
        return render_rows(rows, self._empty)

    def zoom(self, id: int, n: int) -> str:
        """`zoom(id, 1)`: message `id`'s line whole (after `{id}+0|` under
        `zoom_one: headed`); for a larger power of two `n`, node `id+n`'s two
        halves rendered like the view (their two rows alone, joined by a
        newline, under `zoom_halves: bare`). Refused (rule `zoom`) unless `n`
        is a power of two, `id` a multiple of it, and the messages all logged
        (SPEC 3.5), and under `zoom_unbuilt: refused` unless both halves are
        built (SPEC 10). Zooming changes nothing, so no batch ran at it."""
        self.forget_batch()
        if n < 1 or n & (n - 1) or id < 0 or id % n:
            raise Refused("zoom", f"need n a power of 2 and id a multiple of n, not {id}, {n}")
        node = (n.bit_length() - 1, id // n)
        if end(node) > self.count:
            raise Refused("zoom", f"messages {id}..{id + n - 1} are not all logged yet")
        p = self.profile
        if n == 1:
            line = self.tree.line(id)
            return f"{id}+0|{line}" if p.zoom_headed else line
        parts = halves(node)
        if p.zoom_refuses_unbuilt and not all(self.tree.is_built(h) for h in parts):
            raise Refused("zoom", f"a half of {name(node)} is not summarized yet")
        shown = [(half, self.shown(half)) for half in parts]
        if p.zoom_bare:
            return "".join(row(half, text) for half, text in shown)[:-1]
        return render_lines(shown, self._empty)
