"""The chat as one state machine: `initial`, `step`, and what a state shows
(SPEC 3.3, 3.4, 3.5, 4, 10).

`step(state, event)` returns the next state, or raises `Refused` naming the
rule the event breaks; the state it was given is unchanged either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from model import bits
from model import cview as cviews
from model import node as nodes
from model import queue as queues
from model import render as renders
from model import text as texts
from model import tree as trees
from model import zoom as zooms
from model.bits import Bits
from model.constants import Constants
from model.errors import Refused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.line import choose_line, cut_best, fits, over_line
from model.node import Node
from model.profile import Profile
from model.queue import Queue
from model.sawtooth import Sawtooth, batch, receive, resized
from model.tree import Tree
from model.view import View


@dataclass(frozen=True, slots=True)
class State:
    """A chat: its constants and engine profile, message count T, log and
    built nodes, chat view and compaction view (each with its shrinking flag
    and last batch), the work queue, and the calls the last event started
    (SPEC 1-4, 10)."""

    constants: Constants
    profile: Profile
    count: Bits
    tree: Tree
    chat: Sawtooth
    compaction: Sawtooth
    queue: Queue
    started: tuple[Node, ...] = ()


def initial(constants: Constants | None = None, profile: Profile | None = None) -> State:
    """An empty chat (SPEC 1): no message, empty views, nothing to do."""
    return State(
        constants or Constants(),
        profile or Profile(),
        bits.ZERO,
        Tree(),
        Sawtooth((), False),
        Sawtooth((), False),
        Queue(),
    )


def _check_utf8(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise Refused("utf8", f"{what} is not valid UTF-8 text: {error.reason}") from None


def _build(state: State, node: Node, line: str) -> State:
    done = trees.build(state.tree, node, line, state.constants.node)
    return replace(
        state,
        tree=done.tree,
        chat=resized(state.chat, done.tree, done.nodes, state.profile),
        compaction=resized(state.compaction, done.tree, done.nodes, state.profile),
        queue=queues.after_build(state.queue, done, state.profile),
    )


def _message(state: State, event: Message) -> State:
    """SPEC 1, 2, 3.3, 3.4, 4, 10: log the message's line, build its leaf if
    free (queue it under `free_leaves: queued`), run the sawtooth on both
    views, and let failed nodes try again (unless the profile retries only
    after RETRY)."""
    if event.kind not in state.profile.kinds:
        taken = ", ".join(state.profile.kinds)
        raise Refused("kind", f"kind {event.kind!r} is not taken; kinds are {taken}")
    _check_utf8(event.text, "the message")
    c = state.constants
    leaf = nodes.leaf(state.count)
    count = bits.increment(state.count)
    line = texts.message_line(state.profile.word(event.kind), event.text)
    state = replace(
        state,
        count=count,
        tree=trees.log_message(state.tree, leaf.index, line),
        queue=queues.retry(state.queue) if state.profile.retry_at_message else state.queue,
    )
    if trees.is_free(line, c.node) and state.profile.free_leaves == "at_once":
        state = _build(state, leaf, line)
    else:
        state = replace(state, queue=queues.add_unbuilt_leaf(state.queue, leaf))
    p = state.profile
    chat = receive(state.chat, leaf, count, state.tree, c.ceiling, c.floor, p)
    compaction = cviews.follow(
        state.compaction, chat, leaf, count, state.tree, c.cceiling, c.cfloor, p
    )
    return replace(state, chat=chat, compaction=compaction)


def _start(state: State, node: Node) -> State:
    queues.check_start(
        state.queue, state.chat.view, state.tree, state.count, node, state.constants, state.profile
    )
    return replace(state, queue=queues.start(state.queue, node), started=state.started + (node,))


def free_offered(state: State) -> Node | None:
    """The first candidate that is a free leaf, queued under `free_leaves:
    queued`; None when there is none (SPEC 2, 4, 10)."""
    for node in candidates(state):
        if node.level == 0 and trees.is_free(
            trees.message(state.tree, node.index), state.constants.node
        ):
            return node
    return None


def _build_free(state: State) -> State:
    """Under `free_leaves: queued` a free leaf is built with its line, with
    no call, as soon as the queue offers it, one after another in queue
    order; a wait it settles ends under `resume: self` (SPEC 2, 4, 10)."""
    if state.profile.free_leaves == "at_once":
        return state
    while (leaf := free_offered(state)) is not None:
        state = resumed(_build(state, leaf, trees.message(state.tree, leaf.index)))
    return state


def _end(state: State, event: End) -> State:
    """SPEC 4, 5, 10: the call's line, given or chosen from its replies, is
    installed (each line break a space under `flat_lines`; stripped under
    `trim_lines`, and a line stripped to nothing
    fails the call, as replies that fail it under `empty_reply: fails` do);
    replies that run out under `replies_out: asks` leave the call running,
    asking for another, and its next `end` reads on from them. A given line
    over LINE is, under `given_line: reply`, one more reply to the chooser,
    and under `given_line: cut` cut as the chooser cuts (then stripped
    under `trim_lines`, as a chosen line is). A line must fit (1 to LINE
    bytes; under `overlong: kept`, 1 byte or more)."""
    queues.check_running(state.queue, event.node, "end_needs_running")
    c, p = state.constants, state.profile
    if event.replies is None:
        line = _trimmed(str(event.line), p)
        if line is not None and over_line(line, c.node, p):
            if p.given_line == "reply":
                return _chosen(state, event.node, (line,))
            if p.given_line == "cut":
                line = _trimmed(cut_best(line, c.node, p), p)
        if line is None:
            return _failed(state, event.node)
        return _installed(state, event.node, line)
    for reply in event.replies:
        _check_utf8(reply, "a reply")
    return _chosen(state, event.node, event.replies)


def _batch_at_build(state: State, node: Node) -> State:
    """SPEC 3.3, 3.4, 10: under `batches: builds` an `end` after which its
    node is built runs the batch of a shrinking chat view, to FLOOR; when
    that batch merges, the compaction view is the chat view merged further
    down to CFLOOR."""
    if state.profile.batches == "messages" or not state.chat.shrinking:
        return state
    if not trees.is_built(state.tree, node):
        return state
    c, p = state.constants, state.profile
    chat = batch(state.chat, state.count, state.tree, c.floor, p)
    if not chat.merges:
        return replace(state, chat=chat)
    compaction = cviews.further(chat, state.count, state.tree, c.cfloor, p)
    return replace(state, chat=chat, compaction=compaction)


def _trimmed(line: str, p: Profile) -> str | None:
    """A call's line checked for UTF-8 and stripped under `trim_lines`; None
    when that leaves nothing, which fails the call (SPEC 10)."""
    _check_utf8(line, "the line")
    if not p.trim_lines:
        return line
    return texts.strip(line, p.trim_set) or None


def _chosen(state: State, node: Node, replies: tuple[str, ...]) -> State:
    """SPEC 5, 10: the line chosen from the call's replies so far and
    `replies`, installed; or the call failed, or left asking for another."""
    c, p = state.constants, state.profile
    source = trees.source(state.tree, node)
    read = queues.conversation(state.queue, node) + tuple(replies)
    choice = choose_line(source, read, c.node, c.tries, p)
    if choice.asks:
        return replace(state, queue=queues.ask(state.queue, node, read))
    if choice.line is None:
        return _failed(state, node)
    line = _trimmed(choice.line, p)
    if line is None:
        return _failed(state, node)
    return _installed(state, node, line)


def _installed(state: State, node: Node, line: str) -> State:
    """SPEC 5, 10: a call's line built (each line break a space under
    `flat_lines`), when it fits (1 to LINE bytes; under `overlong: kept`, 1
    byte or more); refused `line_fits` otherwise. Stripping under
    `trim_lines` before or after the line breaks are made spaces leaves the
    same line: every trim set holds the line breaks and the space."""
    c, p = state.constants, state.profile
    if p.flat_lines:
        line = texts.spaced(line)
    if not fits(line, c.node, p):
        most = "" if p.overlong == "kept" else f" to {p.line_limit(c.node)}"
        raise Refused("line_fits", f"a line is 1{most} bytes, not {texts.size(line)}")
    return _build(state, node, line)


def _failed(state: State, node: Node) -> State:
    """SPEC 4, 10: a failed call is counted and its node held; under a
    failure cap the FAILURES-th failure builds it from its source cut to NODE
    bytes."""
    queue, failed = queues.fail(state.queue, node)
    state = replace(state, queue=queue)
    if not state.profile.capped or failed < state.constants.failures:
        return state
    cut = texts.cut(trees.source(state.tree, node), state.constants.node)
    return _build(state, node, cut)


def _fail(state: State, event: Fail) -> State:
    queues.check_running(state.queue, event.node, "fail_needs_running")
    return _failed(state, event.node)


def _wait(state: State) -> State:
    if state.queue.waiting:
        raise Refused("one_wait", "a turn already waits")
    return replace(state, queue=queues.begin_wait(state.queue, state.profile.need_first))


def _settle(state: State) -> State:
    if not state.queue.waiting:
        raise Refused("settle_needs_wait", "no turn waits")
    if not settled(state):
        raise Refused("settle_needs_summaries", "a line of the view is not built yet")
    return replace(state, queue=queues.end_wait(state.queue))


def _timeout(state: State) -> State:
    if not state.queue.waiting:
        raise Refused("timeout_needs_wait", "no turn waits")
    return replace(state, queue=queues.end_wait(state.queue))


def _apply(state: State, event: Event) -> State:
    match event:
        case Message():
            return _message(state, event)
        case Start():
            if state.profile.self_calls:
                raise Refused("self_starts", "under calls: self the engine starts its own calls")
            return _start(state, event.node)
        case End():
            return _batch_at_build(_end(state, event), event.node)
        case Fail():
            return _fail(state, event)
        case Wait():
            return _wait(state)
        case Settle():
            return _settle(state)
        case Timeout():
            return _timeout(state)
        case Retry():
            return replace(state, queue=queues.retry(state.queue))
        case Zoom():
            zooms.zoomed_node(state.tree, state.count, event.id, event.n, state.profile)
            return state
    raise Refused("event", f"unknown event {event!r}")


def refuse(state: State) -> State:
    """The chat after a refused event: unchanged, except that the record of
    the last event says no batch ran and no call started at it (SPEC 4.1)."""
    if not (state.chat.merges or state.compaction.merges or state.started):
        return state  # that record says so already
    return replace(
        state,
        chat=replace(state.chat, merges=()),
        compaction=replace(state.compaction, merges=()),
        started=(),
    )


def resumed(state: State) -> State:
    """Under `resume: self` a waiting turn goes on by itself as soon as the
    view is settled, with no `settle` event (SPEC 4, 10)."""
    if state.profile.self_resume and state.queue.waiting and settled(state):
        return replace(state, queue=queues.end_wait(state.queue))
    return state


def step(state: State, event: Event) -> State:
    """The state after `event`, or `Refused` naming the first rule it breaks
    (SPEC 4.1); the state it was given is unchanged either way. Only a
    message runs a batch (under `batches: builds`, an `end` that builds
    its node too); under `resume: self` a wait on a settled view then
    ends, and under `calls: self` the engine then starts every candidate,
    in queue order, after building the free leaves the queue offers under
    `free_leaves: queued` (SPEC 3.3, 4, 10)."""
    state = _build_free(resumed(_apply(refuse(state), event)))
    if state.profile.self_calls:
        while pending := candidates(state):
            state = _start(state, pending[0])
    return state


# What a state shows.


def view(state: State) -> View:
    """The chat view (SPEC 3)."""
    return state.chat.view


def size(state: State) -> int:
    """The chat view's size in bytes (SPEC 3)."""
    return state.chat.size


def shrinking(state: State) -> bool:
    """Whether the chat view is still shrinking (SPEC 3.3)."""
    return state.chat.shrinking


def merges(state: State) -> tuple[Node, ...]:
    """The parents the chat view's batch made at the last event (SPEC 3.3)."""
    return state.chat.merges


def compaction_view(state: State) -> View:
    """The compaction view (SPEC 3.4)."""
    return state.compaction.view


def compaction_merges(state: State) -> tuple[Node, ...]:
    """The parents the compaction view's batch made at the last event (SPEC 3.4)."""
    return state.compaction.merges


def candidates(state: State) -> tuple[Node, ...]:
    """The calls that may start now, in queue order (SPEC 4)."""
    return queues.candidates(
        state.queue, state.chat.view, state.tree, state.constants, state.profile
    )


def candidates_waiting(state: State) -> tuple[Node, ...]:
    """The calls that could start if a turn began to wait now (SPEC 4, law need_first)."""
    queue = state.queue
    if not queue.waiting:
        queue = queues.begin_wait(queue, state.profile.need_first)
    return queues.candidates(queue, state.chat.view, state.tree, state.constants, state.profile)


def started(state: State) -> tuple[Node, ...]:
    """The calls the last event started, in start order (SPEC 4, 10)."""
    return state.started


def settled(state: State) -> bool:
    """Whether every line of the chat view is built (SPEC 4)."""
    return all(trees.is_built(state.tree, line) for line in state.chat.view)


def render(state: State) -> str:
    """The chat view rendered (SPEC 3)."""
    return renders.render(state.chat.view, state.tree, state.profile)


def render_timed_out(state: State) -> str:
    """The chat view as a turn that stopped waiting unsettled reads it (SPEC 4)."""
    return renders.render_timed_out(
        state.chat.view, state.tree, state.constants.node, state.profile
    )


def context(state: State, node: Node) -> View:
    """The compaction view lines a node's call reads (SPEC 3.4)."""
    return cviews.context(state.compaction.view, state.tree, node)


def render_context(state: State, node: Node) -> str:
    """A node's context rendered like the view (SPEC 3.4)."""
    return renders.render(context(state, node), state.tree, state.profile)


def render_contexts(state: State, shown: Iterable[Node]) -> list[str]:
    """Each node's context rendered like the view (SPEC 3.4). Every context
    is a prefix of the compaction view, so the lines of the longest are
    rendered once and each context renders as a prefix of them."""
    contexts = [context(state, node) for node in shown]
    longest = max(contexts, key=len, default=())
    rows = [renders.row(line, renders.shown_text(state.tree, line)) for line in longest]
    return [renders.wrapped(rows[: len(lines)], state.profile) for lines in contexts]


def text(state: State, node: Node) -> str | None:
    """A node's text, or None while unbuilt (SPEC 2)."""
    return trees.text(state.tree, node)


def source(state: State, node: Node) -> str:
    """What a node's call summarizes (SPEC 2)."""
    return trees.source(state.tree, node)


def zoom(state: State, id: Bits, n: Bits) -> str:
    """What `zoom(id, n)` shows, or Refused (rule `zoom`) (SPEC 3.5)."""
    return zooms.zoom(state.tree, state.count, id, n, state.profile)
