"""Hypothesis strategies for constants, engine profiles and event sequences,
in the scenario format: the histories the laws check (laws/history.py) and
`bridge fuzz` replays (SPEC 8, 10).

Events are drawn mostly from what the state allows (the model's candidates,
its running calls, a settle only when settled), so every order the queue
allows appears: messages from empty to many times NODE with multibyte
characters, all three newline kinds and U+2028, call starts, ends (with a
line, or with the replies the call got) and failures in any order, waits,
settles, timeouts, retry ticks and zooms. Now and then an event the state
may not allow is drawn on purpose, so that refusals are checked too. A
history runs under SPEC's profile three times in four, otherwise under a
random engine profile (SPEC 10).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from model import bits, machine
from model.constants import KINDS, Constants
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.node import Node
from model.profile import Profile as EngineProfile
from scenarios import format as scenario_format

T = TypeVar("T")

LETTERS = "ab é€😀\r\n\u2028 "
"""The characters of tiny texts: ASCII, multibyte, every newline kind and U+2028."""


class Draws(Protocol):
    """What an event's draw asks of Hypothesis: a value of a strategy. A
    test's `st.data()` gives it; so does the choice sequence under it, at a
    fraction of the cost per draw (laws/history.py)."""

    def draw(self, strategy: st.SearchStrategy[T]) -> T: ...


SMALL_TEXT = st.text(alphabet=st.sampled_from(list(LETTERS)), max_size=12)

SPACE_ENDS = ("\x0b", "\x1f", "\x85", "\xa0", "\ufeff")
"""Characters some named sets of white space hold and others do not (SPEC
3.6; U+001F none of them), which replies and lines end in now and then."""


@lru_cache(maxsize=None, typed=True)
def between(low: int, high: int) -> st.SearchStrategy[int]:
    """An integer from `low` to `high`. Each strategy here is made once (and
    drawn from as often as asked): making and validating one cost Hypothesis
    more than drawing from it, for every constant and option of every
    history. The draws are the same either way."""
    return st.integers(low, high)


@lru_cache(maxsize=None, typed=True)
def among(*items: T) -> st.SearchStrategy[T]:
    """One of `items` (made once, as `between`; `among(0, 1)` is not `among(False, True)`)."""
    return st.sampled_from(items)


BOOLEANS = st.booleans()


@st.composite
def small_constants(draw: st.DrawFn) -> Constants:
    """Small budgets, so deep trees, many batches, shrinking views and
    failure caps show up in short histories."""
    node = draw(among(16, 32, 64))
    ceiling = draw(between(3 * node, 30 * node))
    floor = draw(between(ceiling // 4, ceiling))
    cceiling = draw(between(node, ceiling))
    cfloor = draw(between(0, cceiling))
    return Constants(
        node=node,
        ceiling=ceiling,
        floor=floor,
        cceiling=cceiling,
        cfloor=cfloor,
        jobs=draw(between(1, 4)),
        ahead=draw(between(1, 4)),
        tries=draw(between(1, 5)),
        failures=draw(between(1, 3)),
    )


SMALL_CONSTANTS = small_constants()


@st.composite
def any_constants(draw: st.DrawFn) -> Constants:
    """Small budgets mostly; the SPEC defaults in about one history in ten."""
    return Constants() if draw(between(0, 99)) >= 90 else draw(SMALL_CONSTANTS)


CONSTANTS = any_constants()

WORDS = st.sampled_from(["you", "talk", "é€", "x"])
TOLERANCES = st.integers(100, 400).map(lambda hundredths: hundredths / 100)
"""Every `tolerance` SPEC 10 allows, each hundredth from 1.00 to 4.00: most
are inexact in binary (1.15), so a LINE computed in floating point rather
than in hundredths comes out a byte short (NODE 100 x 1.15 gives 114). The
line laws' reply lists and the differential test draw from it; histories
(`engine_profiles`) keep three tolerances near 1: past 2 hardly any reply
is over LINE, and the laws of over-long replies (`not_shorter`, `cut`,
`overlong`) saw too few to catch `not_shorter inert` at once (11 s to
268 s in `make mutants --first-catch`)."""
SOME_KINDS = st.one_of(st.just(frozenset(KINDS)), st.frozensets(st.sampled_from(KINDS), min_size=1))
"""The kinds an engine takes (SPEC 10): all of them, or some."""
KIND_WORDS = st.dictionaries(st.sampled_from(KINDS), WORDS)
"""The words an engine leads lines of some kinds with (SPEC 10, `kind_words`)."""


@st.composite
def engine_profiles(draw: st.DrawFn) -> EngineProfile:
    """Every option of SPEC 10 at random."""
    words = draw(KIND_WORDS)
    taken = draw(SOME_KINDS)
    return EngineProfile(
        trim_lines=draw(BOOLEANS),
        kind_words=tuple(sorted(words.items())),
        need_first=draw(BOOLEANS),
        failure_cap=draw(among("failures", "none")),
        calls=draw(among("driven", "self")),
        ahead_in_wait=draw(BOOLEANS),
        empty_chat=draw(among("tags", "blank_line")),
        kinds=tuple(k for k in KINDS if k in taken),
        retry=draw(among("message", "tick")),
        held_takes_job=draw(BOOLEANS),
        merge_order=draw(among("level", "ready")),
        resume=draw(among("settle", "self")),
        empty_reply=draw(among("ends", "fails")),
        not_shorter=draw(among("stops", "goes_on")),
        retried=draw(among("in_place", "first")),
        zoom_one=draw(among("line", "headed")),
        zoom_halves=draw(among("tags", "bare")),
        zoom_unbuilt=draw(among("shown", "refused")),
        tolerance=draw(among(1.0, 1.25, 1.5)),
        cut=draw(among("character", "word")),
        ellipsis=draw(among("", "…", "...")),
        overlong=draw(among("cut", "kept")),
        replies_out=draw(among("ends", "asks")),
        given_line=draw(among("final", "reply", "cut")),
        trim_set=draw(among("unicode", "javascript", "ascii")),
        free_leaves=draw(among("at_once", "queued")),
        flat_lines=draw(BOOLEANS),
        ahead_limit=draw(among("bound", "bound", "bound", "none")),
        flat_sizes=draw(BOOLEANS),
        batches=draw(among("messages", "builds")),
        row_sizes=draw(BOOLEANS),
    )


ENGINE_PROFILES = engine_profiles()


@st.composite
def any_profile(draw: st.DrawFn) -> EngineProfile:
    """SPEC's own profile three times in four, a random one otherwise."""
    return EngineProfile() if draw(between(0, 3)) else draw(ENGINE_PROFILES)


def below(n: int) -> st.SearchStrategy[int]:
    """An index in `range(n)` (made once, as `between`)."""
    return between(0, n - 1)


def choose(data: Draws, items: Sequence[T]) -> T:
    """One of `items`, drawn."""
    return items[data.draw(below(len(items)))]


@cache
def texts(node: int) -> st.SearchStrategy[str]:
    """Message texts: tiny ones, and sized ones up to six times NODE."""
    return st.one_of(
        SMALL_TEXT,
        st.builds(scenario_format.sized_text, st.integers(0, 6 * node), st.integers(0, 60)),
    )


@cache
def replies(node: int) -> st.SearchStrategy[tuple[str, ...]]:
    """What a call got: fitting, over-long, empty and blank replies, some
    ending in characters where the named sets of white space differ; and
    over-long replies of one size, where "not shorter" and "shorter" differ
    (SPEC 3.6, 5: a follow-up as long as the best ends the tries)."""
    sized = st.builds(scenario_format.sized_text, st.integers(1, 3 * node), st.integers(0, 40))
    reply = st.one_of(
        st.sampled_from(["", " ", " \n", *SPACE_ENDS]),
        sized,
        st.builds(lambda text, end: text + end, sized, st.sampled_from(SPACE_ENDS)),
    )
    same_size = st.builds(
        lambda size, count, first: tuple(
            scenario_format.sized_text(size, first + k) for k in range(count)
        ),
        st.integers(node + 1, 3 * node),
        st.integers(2, 4),
        st.integers(0, 40),
    )
    return st.one_of(st.lists(reply, min_size=1, max_size=7).map(tuple), same_size)


def illegal(data: Draws, state: machine.State) -> Event:
    """An event drawn with no regard to what the state allows."""
    t = bits.to_int(state.count)
    level = data.draw(below(4))
    node = Node(level, bits.from_int(data.draw(below((t >> level) + 2))))
    return choose(
        data,
        [
            Start(node),
            End(node, "x"),
            End(node, ""),
            End(node, "x" * (state.constants.node + 1)),
            Fail(node),
            Wait(),
            Settle(),
            Timeout(),
            Message("bot", "hi"),
            Message("user", "a\ud800"),
            Zoom(bits.from_int(t + 1), bits.ONE),
            Zoom(bits.ZERO, bits.from_int(3)),
        ],
    )


def two_rules(data: Draws, state: machine.State) -> Event:
    """An event aimed at breaking two rules of SPEC 4.1 at once (the pairs of
    scenarios/README.md, "both"), where SPEC names the first in its order:
    an unknown kind with text of no UTF-8 form; an end of a node not running
    with a line of no UTF-8 form or empty, or of a running one too long and
    of no UTF-8 form; a settle with no turn waiting and calls running; and a
    start of any node, which breaks `jobs_bound` with whichever of
    `node_exists`, `built_once`, `one_call_per_node`, `need_first`,
    `retry_waits`, `ahead_bound` or `merge_needs_halves` it breaks when the
    jobs are full (the only weight a start has: nothing else it may break
    with another depends on what is drawn)."""
    c, q = state.constants, state.queue
    t = bits.to_int(state.count)
    level = data.draw(below(4))
    node = Node(level, bits.from_int(data.draw(below((t >> level) + 2))))
    if q.running and data.draw(below(2)):
        node = choose(data, q.running)
    return choose(
        data,
        [
            Message("bot", "a\ud800"),
            End(node, "a\ud800"),
            End(node, ""),
            End(node, "x" * c.node + "\ud800"),
            Settle(),
            Start(node),
            Start(node),
        ],
    )


def choices_of(data: Draws) -> Draws:
    """The choice sequence under a test's `st.data()`: the same draws without
    `data.draw`'s bookkeeping per draw (argument spans, a guard on the global
    random, notes for Hypothesis's own report of a failure), which was two
    fifths of the time the laws' histories took to draw and step their
    events; anything else that draws, as it is."""
    return getattr(data, "conjecture_data", data)


def draw_event(data: Draws, state: machine.State) -> Event:
    """One event, weighted towards messages and calls, mostly one the state allows."""
    data = choices_of(data)
    c = state.constants
    # What every state offers comes first, at fixed places, so that a shrunk
    # history's choices keep their meaning when events before them go.
    options = ["message"] * 4 + ["timeout" if state.queue.waiting else "wait", "illegal", "zoom"]
    if machine.candidates(state):
        options += ["start"] * 4
    if state.queue.running:
        options += ["end"] * 4 + ["replies"] * 2 + ["fail"]
    if state.queue.held:
        options += ["retry"]
    if state.queue.waiting and machine.settled(state):
        options += ["settle"] * 4
    choice = choose(data, options)
    if choice == "message":
        return Message(choose(data, state.profile.kinds), data.draw(texts(c.node)))
    if choice == "start":
        return Start(choose(data, machine.candidates(state)))
    if choice in ("end", "replies", "fail"):
        node = choose(data, state.queue.running)
        if choice == "fail":
            return Fail(node)
        if choice == "replies":
            return End(node, replies=data.draw(replies(c.node)))
        # Short lines, lines up to NODE, and now and then one up to twice NODE,
        # which may be over LINE (SPEC 10, `given_line`).
        over = not data.draw(below(6))
        reach = 2 * c.node if over else 6 if data.draw(below(2)) else c.node
        size = 1 + data.draw(below(reach))
        line = scenario_format.sized_text(size, data.draw(below(61)))
        if not data.draw(below(4)):
            line += choose(data, SPACE_ENDS)
        return End(node, line)
    if choice == "zoom":
        t = bits.to_int(state.count)
        n = 1 << data.draw(below(max(1, t.bit_length())))
        id = data.draw(below(t + 1)) // n * n
        return Zoom(bits.from_int(id), bits.from_int(n))
    if choice == "illegal":
        return illegal(data, state)
    return {"wait": Wait(), "timeout": Timeout(), "settle": Settle(), "retry": Retry()}[choice]


def node_list(node: Node) -> list[int]:
    return [node.level, bits.to_int(node.index)]


def event_dict(event: Event) -> dict[str, Any]:
    """An event in the scenario format."""
    match event:
        case Message(kind, text):
            return {"event": "message", "kind": kind, "text": text}
        case Start(node):
            return {"event": "start", "node": node_list(node)}
        case End(node, line, None):
            return {"event": "end", "node": node_list(node), "line": line}
        case End(node, None, replies):
            return {
                "event": "end",
                "node": node_list(node),
                "replies": [{"text": r} for r in replies],
            }
        case Fail(node):
            return {"event": "fail", "node": node_list(node)}
        case Zoom(id, n):
            return {"event": "zoom", "id": bits.to_int(id), "n": bits.to_int(n)}
    return {"event": type(event).__name__.lower()}


def constants_dict(c: Constants) -> dict[str, int | float]:
    return {name: getattr(c, name) for name in scenario_format.CONSTANTS}
