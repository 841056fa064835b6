"""The chat as one state machine: `initial`, `step`, and what a state shows
(SPEC 3.3, 3.4, 4).

`step(state, event)` returns the next state, or raises `Refused` naming the
rule the event breaks; the state it was given is unchanged either way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model import bits
from model import cview as cviews
from model import node as nodes
from model import queue as queues
from model import render as renders
from model import text as texts
from model import tree as trees
from model.bits import Bits
from model.constants import KINDS, Constants
from model.errors import Refused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait
from model.node import Node
from model.queue import Queue
from model.sawtooth import Sawtooth, receive, resized
from model.tree import Tree
from model.view import View


@dataclass(frozen=True, slots=True)
class State:
    """A chat: its constants, message count T, log and built nodes, chat view
    and compaction view (each with its shrinking flag and last batch), and
    the work queue (SPEC 1-4)."""

    constants: Constants
    count: Bits
    tree: Tree
    chat: Sawtooth
    compaction: Sawtooth
    queue: Queue


def initial(constants: Constants | None = None) -> State:
    """An empty chat (SPEC 1): no message, empty views, nothing to do."""
    return State(
        constants or Constants(),
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
        chat=resized(state.chat, done.tree, done.nodes),
        compaction=resized(state.compaction, done.tree, done.nodes),
        queue=queues.after_build(state.queue, done),
    )


def _message(state: State, event: Message) -> State:
    """SPEC 1, 2, 3.3, 3.4, 4: log the message, build its leaf if free, run
    the sawtooth on both views, and let failed nodes try again."""
    if event.kind not in KINDS:
        raise Refused("kind", f"unknown kind {event.kind!r}; kinds are {', '.join(KINDS)}")
    _check_utf8(event.text, "the message")
    c = state.constants
    leaf = nodes.leaf(state.count)
    count = bits.increment(state.count)
    state = replace(
        state,
        count=count,
        tree=trees.log_message(state.tree, leaf.index, event.kind, event.text),
        queue=queues.retry(state.queue),
    )
    line = trees.source(state.tree, leaf)
    if trees.is_free(line, c.node):
        state = _build(state, leaf, line)
    else:
        state = replace(state, queue=queues.add_unbuilt_leaf(state.queue, leaf))
    chat = receive(state.chat, leaf, count, state.tree, c.ceiling, c.floor)
    compaction = cviews.follow(
        state.compaction, chat, leaf, count, state.tree, c.cceiling, c.cfloor
    )
    return replace(state, chat=chat, compaction=compaction)


def _start(state: State, event: Start) -> State:
    queues.check_start(
        state.queue, state.chat.view, state.tree, state.count, event.node, state.constants
    )
    return replace(state, queue=queues.start(state.queue, event.node))


def _end(state: State, event: End) -> State:
    queues.check_running(state.queue, event.node, "end_needs_running")
    _check_utf8(event.line, "the line")
    if not 1 <= texts.size(event.line) <= state.constants.node:
        raise Refused(
            "line_fits",
            f"a line is 1 to {state.constants.node} bytes, not {texts.size(event.line)}",
        )
    return _build(state, event.node, event.line)


def _fail(state: State, event: Fail) -> State:
    """SPEC 4: the FAILURES-th failure builds the node from its source cut to NODE bytes."""
    queues.check_running(state.queue, event.node, "fail_needs_running")
    queue, failed = queues.fail(state.queue, event.node)
    state = replace(state, queue=queue)
    if failed < state.constants.failures:
        return state
    cut = texts.cut(trees.source(state.tree, event.node), state.constants.node)
    return _build(state, event.node, cut)


def _wait(state: State) -> State:
    if state.queue.waiting:
        raise Refused("one_wait", "a turn already waits")
    return replace(state, queue=queues.begin_wait(state.queue))


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


def step(state: State, event: Event) -> State:
    """The state after `event`, or `Refused` naming the rule it breaks (SPEC 3.3, 4).
    Only a message runs a batch; after any other event no batch has merged."""
    if not isinstance(event, Message):
        state = replace(
            state,
            chat=replace(state.chat, merges=()),
            compaction=replace(state.compaction, merges=()),
        )
    match event:
        case Message():
            return _message(state, event)
        case Start():
            return _start(state, event)
        case End():
            return _end(state, event)
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
    raise Refused("event", f"unknown event {event!r}")


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


def candidates(state: State) -> tuple[Node, ...]:
    """The calls that may start now, in queue order (SPEC 4)."""
    return queues.candidates(state.queue, state.chat.view, state.tree, state.constants)


def candidates_waiting(state: State) -> tuple[Node, ...]:
    """The calls that could start if a turn began to wait now (SPEC 4, law need_first)."""
    queue = state.queue if state.queue.waiting else queues.begin_wait(state.queue)
    return queues.candidates(queue, state.chat.view, state.tree, state.constants)


def settled(state: State) -> bool:
    """Whether every line of the chat view is built (SPEC 4)."""
    return all(trees.is_built(state.tree, line) for line in state.chat.view)


def render(state: State) -> str:
    """The chat view rendered (SPEC 3)."""
    return renders.render(state.chat.view, state.tree)


def render_timed_out(state: State) -> str:
    """The chat view as a turn that stopped waiting unsettled reads it (SPEC 4)."""
    return renders.render_timed_out(state.chat.view, state.tree, state.constants.node)


def context(state: State, node: Node) -> View:
    """The compaction view lines a node's call reads (SPEC 3.4)."""
    return cviews.context(state.compaction.view, state.tree, node)


def render_context(state: State, node: Node) -> str:
    """A node's context rendered like the view (SPEC 3.4)."""
    return renders.render(context(state, node), state.tree)


def text(state: State, node: Node) -> str | None:
    """A node's text, or None while unbuilt (SPEC 2)."""
    return trees.text(state.tree, node)


def source(state: State, node: Node) -> str:
    """What a node's call summarizes (SPEC 2)."""
    return trees.source(state.tree, node)
