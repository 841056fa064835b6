"""The vocabulary the laws speak in, stated on plain integers so that a law
does not reuse the model function it checks (after eukhe's laws/base):
tilings, sizes, dues as exact fractions, the render, the queue's order, the
line chooser and the rules of SPEC 4.1, each restated from SPEC.md."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import cache
from typing import Any, Generic, TypeVar

from laws.registry import Step
from model import bits, machine
from model import node as nodes
from model import text as texts
from model import tree as trees
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.machine import State
from model.node import Node
from model.profile import Profile

Line = tuple[int, int]

V = TypeVar("V")

PLACEHOLDER = "(not summarized yet: zoom it)"
"""What an unbuilt line shows (SPEC 3, 7), restated."""

ZS = [0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]
"""Unicode's space separators (category Zs), which every set but ASCII's holds."""

WHITE_SPACE = {
    "unicode": frozenset(map(chr, [*range(0x09, 0x0E), 0x85, 0x2028, 0x2029, *ZS])),
    "javascript": frozenset(map(chr, [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x2028, 0x2029, 0xFEFF, *ZS])),
    "ascii": frozenset(map(chr, [0x09, 0x0A, 0x0C, 0x0D, 0x20])),
}
"""The named sets of white space (SPEC 3.6), restated from the code points it lists."""


def strip(text: str, profile: Profile) -> str:
    """`text` without the profile's white space at either end (SPEC 3.6)."""
    space = WHITE_SPACE[profile.trim_set]
    first, end = 0, len(text)
    while first < end and text[first] in space:
        first += 1
    while end > first and text[end - 1] in space:
        end -= 1
    return text[first:end]


def line_limit(node: int, profile: Profile) -> int:
    """LINE: NODE, or ⌊NODE × tolerance⌋ with the tolerance in hundredths (SPEC 5, 10)."""
    return node * round(profile.tolerance * 100) // 100


@cache
def plain(node: Node) -> Line:
    """A node as `(level, index)` integers (the laws ask for the same nodes
    again and again, so they are remembered)."""
    return node.level, bits.to_int(node.index)


def lines(view: tuple[Node, ...]) -> list[Line]:
    """The view's lines as integers (once per view: every law of a step
    reads the views of its states)."""
    return list(_LINES.of(view, lambda: [plain(n) for n in view]))


def span(line: Line) -> tuple[int, int]:
    """The messages `[first, end)` a line covers."""
    level, index = line
    return index << level, (index + 1) << level


def tiles(view: tuple[Node, ...], count: int) -> str | None:
    """None when the view covers 0..count-1 once, oldest first; else the flaw."""
    at = 0
    for line in lines(view):
        first, end = span(line)
        if first != at:
            return f"line {first}+{end - first} starts at {first}, expected {at}"
        at = end
    return None if at == count else f"the view ends at {at}, not at T = {count}"


def count(state: State) -> int:
    return bits.to_int(state.count)


def built(state: State, line: Line) -> bool:
    return text(state, line) is not None


def line_size(state: State, line: Line) -> int:
    """A line's size as the state's profile measures it (`measured`)."""
    return measured(state, text(state, line), line)


def measured(state: State, text: str | None, line: Line) -> int:
    """The size of view line `line` with `text` (None while unbuilt) as the
    state's profile measures it: raw bytes, or under `flat_sizes` each run of
    line breaks one byte, and under `row_sizes` with `{start}+{count}|` and a
    newline (SPEC 3, 10)."""
    head = len(name(line)) + 2 if state.profile.row_sizes else 0
    if text is None:
        return 29 + head
    if state.profile.flat_sizes:
        return texts.size(re.sub("[\r\n]+", " ", text)) + head
    return texts.size(text) + head


def view_size(state: State, view: tuple[Node, ...]) -> int:
    return sum(line_size(state, line) for line in lines(view))


def views_measured(state: State) -> None:
    """Each view's size is the sum of its lines' sizes as `line_size`
    measures them under the state's profile (SPEC 3, 10)."""
    for what, saw in (("chat view", state.chat), ("compaction view", state.compaction)):
        expected = view_size(state, saw.view)
        assert saw.size == expected, f"the {what} measures {saw.size} bytes, not {expected}"


def mergeable_pairs(state: State, view: tuple[Node, ...]) -> list[int]:
    """Positions k where lines k, k+1 are siblings (l, 2j), (l, 2j+1) with a built parent."""
    out = []
    plain_view = lines(view)
    for k in range(len(plain_view) - 1):
        (la, ia), (lb, ib) = plain_view[k], plain_view[k + 1]
        if la == lb and ia % 2 == 0 and ib == ia + 1 and built(state, (la + 1, ia // 2)):
            out.append(k)
    return out


def word(state: State, kind: str) -> str:
    """The word before `: ` in a message's line (SPEC 1, 10)."""
    return dict(state.profile.kind_words).get(kind, kind)


def message_line(state: State, event: Message) -> str:
    return f"{word(state, event.kind)}: {event.text}"


def built_after_batch(step: Step) -> bool:
    """Whether a taken message built a free leaf after its batches, as a queued
    one is built once the queue offers it (SPEC 10 `free_leaves: queued`): the
    views' laws, which read the sizes after the event, do not restate that
    order, and pass over such a step (law `queued_free_leaf_waits` checks it)."""
    if step.refused or not isinstance(step.event, Message):
        return False
    if step.before.profile.free_leaves != "queued":
        return False
    was = set(leaves_unbuilt(step.before)) | {(0, count(step.before))}
    return not was <= set(leaves_unbuilt(step.after))


def batch_at_build(step: Step) -> bool:
    """Whether a taken `end` ran a batch under `batches: builds`: its node is
    built after it and the chat view was shrinking before it (SPEC 3.3, 10)."""
    event = step.event
    return (
        not step.refused
        and isinstance(event, End)
        and step.before.profile.batches == "builds"
        and step.before.chat.shrinking
        and built(step.after, plain(event.node))
    )


def batch_due(step_before: State, event: object) -> bool:
    """Whether a message starts a batch: the view is shrinking, or over CEILING
    once the message's line is appended (SPEC 3.3): its leaf's placeholder,
    or its line when free (still the placeholder under `free_leaves:
    queued`, SPEC 10: built after the batch, if at all)."""
    if not isinstance(event, Message):
        return False
    if step_before.chat.shrinking:
        return True
    line = message_line(step_before, event)
    paid = texts.size(line) > step_before.constants.node
    unbuilt = paid or step_before.profile.free_leaves == "queued"
    leaf = measured(step_before, None if unbuilt else line, (0, count(step_before)))
    return view_size(step_before, step_before.chat.view) + leaf > step_before.constants.ceiling


def name(line: Line) -> str:
    first, end = span(line)
    return f"{first}+{end - first}"


def replay_merges(step_before: State, event: Event, merges: tuple[Node, ...]) -> list[list[Line]]:
    """The views a batch passes through: the old view with a message's leaf
    appended, then each logged merge applied to the pair of its two halves.
    Raises AssertionError naming a merge whose halves are not adjacent lines."""
    view = lines(step_before.chat.view)
    if isinstance(event, Message):
        view.append((0, count(step_before)))
    out = [list(view)]
    for parent in merges:
        level, index = plain(parent)
        halves = [(level - 1, 2 * index), (level - 1, 2 * index + 1)]
        at = next((k for k in range(len(view) - 1) if view[k : k + 2] == halves), None)
        assert at is not None, f"merge {name((level, index))} does not join two adjacent halves"
        view = view[:at] + [(level, index)] + view[at + 2 :]
        out.append(list(view))
    return out


def context_nodes(state: State) -> list[Node]:
    """The nodes whose calls may start or are running: their contexts are read."""
    return list(machine.candidates(state)) + list(state.queue.running)


class Recent(Generic[V]):
    """What was made from the last few values asked about (a state, a
    tree), found again by identity: every law of a step asks about the same
    ones, and they are immutable. `also` tells apart what one value was
    asked with (a count)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.known: list[tuple[object, int, V]] = []

    def of(self, value: object, make: Callable[[], V], also: int = 0) -> V:
        for known, at, found in self.known:
            if known is value and at == also:
                return found
        found = make()
        self.known[:] = [(value, also, found), *self.known[: self.keep - 1]]
        return found


_CONTEXTS: Recent[list[tuple[Node, list[Line]]]] = Recent(4)
_LINES: Recent[list[Line]] = Recent(8)
_TEXTS: Recent[dict[Line, str | None]] = Recent(8)
_ROWS: Recent[dict[tuple[Line, str], str]] = Recent(8)
"""Each row a render of a tree's lines was made of, by its line and text:
the render laws render the view, the timed-out view and every context
(prefixes of the compaction view) of each step's state."""


def contexts(state: State) -> list[tuple[Node, list[Line]]]:
    """Each node of `context_nodes` with the lines of its context, as the
    model gives it (SPEC 3.4): asked of the model once per state, since
    three laws read every context of a step's state."""
    return _CONTEXTS.of(
        state,
        lambda: [(node, lines(machine.context(state, node))) for node in context_nodes(state)],
    )


def context_end(line: Line) -> int:
    """Where a node's context stops (SPEC 3.4): i for a leaf, its end for a merge."""
    level, index = line
    return index if level == 0 else span(line)[1]


@cache
def node_of(line: Line) -> Node:
    return Node(line[0], bits.from_int(line[1]))


def text(state: State, line: Line) -> str | None:
    """The line's text as the model gives it (asked once per tree and line:
    the render laws of a step read every line of its states)."""
    known = _TEXTS.of(state.tree, dict)
    if line not in known:
        known[line] = machine.text(state, node_of(line))
    return known[line]


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes at a character boundary (SPEC 4, 5)."""
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


NEWLINE = re.compile("\r\n|\r|\n")


def flat(text: str) -> str:
    """Every `\\r\\n`, `\\r` and `\\n` turned into one space (SPEC 3)."""
    return NEWLINE.sub(" ", text)


def render(state: State, rows: list[tuple[Line, str]]) -> str:
    """`<chat>\n`, `{start}+{count}|{text}\n` per row, `</chat>`; no row at all
    renders a blank line between the tags under `empty_chat: blank_line`
    (SPEC 3, 10)."""
    if not rows and state.profile.empty_chat == "blank_line":
        return "<chat>\n\n</chat>"
    made = _ROWS.of(state.tree, dict)
    for row in rows:
        if row not in made:
            line, t = row
            made[row] = f"{name(line)}|{flat(t)}\n"
    return "<chat>\n" + "".join(made[row] for row in rows) + "</chat>"


def shown(state: State, line: Line) -> str:
    found = text(state, line)
    return PLACEHOLDER if found is None else found


def due(count: int, pair: Line) -> Fraction:
    """A pair's due, `(T - last) / 2^l` as an exact fraction (SPEC 3.1)."""
    level, index = pair
    last = ((index + 2) << level) - 1
    return Fraction(count - last, 1 << level)


def most_due(state: State, view: list[Line], count: int) -> int | None:
    """The position of the mergeable pair with the greatest due, the oldest
    among equals; None when no pair is mergeable (SPEC 3.1)."""
    best: int | None = None
    for k in range(len(view) - 1):
        (la, ia), (lb, ib) = view[k], view[k + 1]
        if la == lb and ia % 2 == 0 and ib == ia + 1 and built(state, (la + 1, ia // 2)):
            if best is None or due(count, view[k]) > due(count, view[best]):
                best = k
    return best


def fitted(state: State, view: list[Line], count: int, merges: list[Line], budget: int) -> str:
    """Why `merges` are not a batch of `view` to `budget`: each must join the
    most due mergeable pair, and the batch must stop exactly when the view is
    at most `budget` or no pair is mergeable (SPEC 3.1); '' when they are."""
    view = list(view)
    for parent in merges:
        k = most_due(state, view, count)
        if k is None:
            return f"merged {name(parent)} with no pair mergeable"
        if view[k][0] + 1 != parent[0] or view[k][1] // 2 != parent[1]:
            return f"merged {name(parent)}, not the most due pair {name(view[k])}"
        if sum(line_size(state, line) for line in view) <= budget:
            return f"merged {name(parent)} at or under the budget {budget}"
        view = view[:k] + [parent] + view[k + 2 :]
    over = sum(line_size(state, line) for line in view) > budget
    if over and most_due(state, view, count) is not None:
        return f"stopped over the budget {budget} with a pair mergeable"
    return ""


_BUILT: Recent[frozenset[Line]] = Recent(8)


def built_set(state: State) -> frozenset[Line]:
    """Every built node, read off the tree's tries once per tree (the last
    few are remembered: every law of a step asks about the same one, and the
    states a law makes of a step's state, with another queue, share its tree)."""
    return _BUILT.of(state.tree, lambda: _built(state.tree))


def _built(tree: trees.Tree) -> frozenset[Line]:
    out: set[Line] = set()
    for level, root in enumerate(tree.built):
        stack = [(root, 0, 0)]
        while stack:
            node, key, depth = stack.pop()
            if node is None:
                continue
            if node.value is not None:
                out.add((level, key))
            stack.append((node.zero, key, depth + 1))
            stack.append((node.one, key | 1 << depth, depth + 1))
    return frozenset(out)


_UNBUILT: Recent[list[Line]] = Recent(8)


def leaves_unbuilt(state: State) -> list[Line]:
    """The unbuilt leaves, oldest first: found by scanning the log, as a law
    may (once per tree and count, as `built_set`)."""
    t = count(state)

    def scan() -> list[Line]:
        done = built_set(state)
        return [(0, i) for i in range(t) if (0, i) not in done]

    return list(_UNBUILT.of(state.tree, scan, t))


_READY: Recent[list[Line]] = Recent(8)


def ready_merges(state: State) -> list[Line]:
    """Every unbuilt merge whose halves are built, by (level, index): found by
    scanning the tree, as a law may (once per tree, as `built_set`)."""

    def scan() -> list[Line]:
        done = built_set(state)
        out = []
        for level, index in done:
            parent = (level + 1, index // 2)
            if index % 2 == 0 and (level, index + 1) in done and parent not in done:
                out.append(parent)
        return sorted(out)

    return list(_READY.of(state.tree, scan))


def merge_order(state: State) -> list[Line]:
    """The ready merges in queue order: by (level, index); under `merge_order:
    ready` in the order the queue keeps them, which the law
    `ready_merges_keep_arrival` checks is the order they became ready."""
    found = ready_merges(state)
    if state.profile.merge_order == "level":
        return found
    kept = [plain(n) for n in state.queue.ready]
    return sorted(found, key=lambda m: kept.index(m) if m in kept else len(kept))


def work(state: State, waiting: bool) -> list[Line]:
    """The candidates restated before the cut to room (SPEC 4, 10): unbuilt
    leaves oldest first within AHEAD (all of them while a turn waits with
    `ahead_in_wait` off, or under `ahead_limit: none`), then the ready
    merges by (level, index) or as `merge_order` says (none while a turn waits, under `need_first`),
    leaving out running and held nodes (the running merges stopped, when a
    wait stops them); under `retried: first` the nodes let go after a
    failure first, in the order they were let go."""
    c, p, q = state.constants, state.profile, state.queue
    running = [plain(n) for n in q.running]
    if waiting and p.need_first:
        running = [n for n in running if n[0] == 0]
    busy = set(running) | {plain(n) for n in q.held}
    leaves = leaves_unbuilt(state)
    if not (waiting and not p.ahead_in_wait) and p.ahead_limit == "bound":
        leaves = leaves[: c.ahead]
    found = [leaf for leaf in leaves if leaf not in busy]
    if waiting and p.need_first:
        view = set(lines(state.chat.view))
        found = [leaf for leaf in found if leaf in view]
    else:
        found += [m for m in merge_order(state) if m not in busy]
    if p.retried == "first":
        again = [plain(n) for n in q.retried]
        found = [n for n in again if n in found] + [n for n in found if n not in again]
    return found


def room(state: State, waiting: bool) -> int:
    """How many calls may start (SPEC 4, 10): JOBS less the running calls
    (the running merges stopped, when a wait stops them) and, under
    `held_takes_job`, less the held nodes; never below 0."""
    c, p, q = state.constants, state.profile, state.queue
    running = [n for n in q.running if not (waiting and p.need_first and n.level > 0)]
    return max(c.jobs - len(running) - (len(q.held) if p.held_takes_job else 0), 0)


def queue(state: State, waiting: bool) -> list[Line]:
    """The candidates restated (SPEC 4, 10): `work` cut to `room`."""
    return work(state, waiting)[: room(state, waiting)]


def without_last_event(state: State) -> State:
    """The state with no record of a last batch or of calls started."""
    return replace(
        state,
        chat=replace(state.chat, merges=()),
        compaction=replace(state.compaction, merges=()),
        started=(),
    )


def chooser_cut(text: str, limit: int, profile: Profile) -> str:
    """The chooser's cut, restated (SPEC 5, 10): a text of at most `limit`
    bytes as it is; a longer one cut at a character boundary to `limit` less
    the ellipsis, under `cut: word` back to before its last white space when
    that is not its first character and then without the white space it
    ends in (unless nothing is left), then the ellipsis."""
    if size(text) <= limit:
        return text
    head = cut(text, limit - size(profile.ellipsis))
    if profile.cut == "word":
        space = WHITE_SPACE[profile.trim_set]
        words = head
        for at in range(len(head) - 1, 0, -1):
            if head[at] in space:
                words = head[:at]
                break
        while words and words[-1] in space:
            words = words[:-1]
        head = words or head
    return head + profile.ellipsis


def runs_out(replies: list[str], node: int, tries: int, profile: Profile) -> bool:
    """Whether a conversation's replies run out before TRIES with no line
    chosen: fewer than TRIES, none empty once stripped, none fitting, and
    (unless `not_shorter: goes_on`) each follow-up shorter than the best
    before it (SPEC 5)."""
    if len(replies) >= tries:
        return False
    best: int | None = None
    for reply in replies:
        length = size(strip(reply, profile))
        if length == 0 or length <= line_limit(node, profile):
            return False
        if best is not None and length >= best and profile.not_shorter == "stops":
            return False
        best = length if best is None else min(best, length)
    return True


def choose(source: str, replies: list[str], node: int, tries: int, profile: Profile) -> str | None:
    """The line SPEC 5 chooses from a call's replies, restated: each reply
    stripped; a fit (1 to LINE bytes) is the line; an empty reply ends the
    tries (None, the call fails, under `empty_reply: fails`); a follow-up not
    shorter than the best ends them (is passed over under `not_shorter:
    goes_on`); at the end the best whole under `overlong: kept`, else the
    best (or the source) cut. None too when the replies run out and the
    call asks for another (`replies_out: asks`) (SPEC 5, 10)."""
    if profile.replies_out == "asks" and runs_out(replies, node, tries, profile):
        return None
    limit = line_limit(node, profile)
    best: str | None = None
    for reply in replies[:tries]:
        reply = strip(reply, profile)
        if not reply:
            if profile.empty_reply == "fails":
                return None
            break
        if size(reply) <= limit:
            return reply
        if best is None or size(reply) < size(best):
            best = reply
        elif profile.not_shorter == "stops":
            break
    if best is not None and profile.overlong == "kept":
        return best
    return chooser_cut(source if best is None else best, limit, profile)


def conversation(state: State, node: Line) -> list[str]:
    """The replies a running call that asks for another has read (SPEC 5, 10):
    as the model keeps them, which the law `run_out_asks_again` checks."""
    return list(dict(state.queue.asked).get(node_of(node), ()))


def chooser_replies(event: End, node: int, profile: Profile) -> tuple[str, ...] | None:
    """What an `end` gives the line chooser (SPEC 5, 10): its replies; under
    `given_line: reply` a given line over LINE (stripped under `trim_lines`)
    as one reply; None for a given line installed as it is."""
    if event.replies is not None:
        return tuple(event.replies)
    given = strip(str(event.line), profile) if profile.trim_lines else str(event.line)
    if profile.given_line == "reply" and size(given) > line_limit(node, profile):
        return (given,)
    return None


def end_outcome(state: State, event: End, profile: Profile) -> tuple[str, str | None]:
    """What an `end` of a running call does under `profile` (SPEC 4, 5, 10):
    `("build", line)`, `("fail", None)` (the replies or an emptied line fail
    it), `("ask", None)` (its replies run out under `replies_out: asks`) or
    `("refuse", None)` (the line does not fit: rule `line_fits`). A given
    line over LINE is one more reply under `given_line: reply`, and cut as
    the chooser cuts under `given_line: cut`."""
    c, node = state.constants, plain(event.node)
    line, replies = event.line, chooser_replies(event, c.node, profile)
    if replies is None and profile.given_line == "cut":
        given = strip(str(line), profile) if profile.trim_lines else str(line)
        if size(given) > line_limit(c.node, profile):
            line = chooser_cut(given, line_limit(c.node, profile), profile)
    if replies is not None:
        read = conversation(state, node) + list(replies)
        if profile.replies_out == "asks" and runs_out(read, c.node, c.tries, profile):
            return "ask", None
        line = choose(source(state, node), read, c.node, c.tries, profile)
        if line is None:
            return "fail", None
    assert line is not None
    if profile.flat_lines:
        line = line.replace("\r", " ").replace("\n", " ")
    if profile.trim_lines:
        line = strip(line, profile)
        if not line:
            return "fail", None
    most = size(line) if profile.overlong == "kept" else line_limit(c.node, profile)
    return ("build", line) if 1 <= size(line) <= most else ("refuse", None)


def declared_outcome(step: Step, option: str, other: Any) -> None:
    """At a taken `end` whose outcome under the profile with `option` at
    `other` would differ: the model did what the declared profile says (the
    line built; a failure counted; the call still running, asking) (SPEC 10)."""
    event = step.event
    if not isinstance(event, End) or step.refused:
        return
    before, after = step.before, step.after
    declared = end_outcome(before, event, before.profile)
    if declared == end_outcome(before, event, replace(before.profile, **{option: other})):
        return
    node = plain(event.node)
    kind, line = declared
    if kind == "build":
        assert text(after, node) == line, f"{name(node)} was built with {text(after, node)!r}"
    elif kind == "ask":
        assert event.node in after.queue.running, f"{name(node)}'s call stopped asking"
        assert text(after, node) is None, f"{name(node)} was built while its call asks"
    else:
        was = dict(before.queue.failures).get(event.node, 0)
        now = dict(after.queue.failures).get(event.node, was + 1)
        assert now == was + 1, f"{name(node)}'s call did not fail"


def source(state: State, line: Line) -> str:
    """A node's source (SPEC 2): a leaf's logged line; the halves joined."""
    level, index = line
    if level == 0:
        return trees.message(state.tree, bits.from_int(index))
    left, right = text(state, (level - 1, 2 * index)), text(state, (level - 1, 2 * index + 1))
    return f"{left}\n{right}"


def event_name(event: Event) -> str:
    return type(event).__name__.lower()


KINDS = ("user", "unii", "tool", "echo", "work", "note")


def utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def zoom_node(state: State, id: int, n: int) -> Line | None:
    """The node `zoom(id, n)` opens, or None when it is refused (SPEC 3.5;
    under `zoom_unbuilt: refused` also when a half is not built, SPEC 10)."""
    if n < 1 or n & (n - 1) or id % n:
        return None
    line = (n.bit_length() - 1, id // n)
    if span(line)[1] > count(state):
        return None
    if line[0] and state.profile.zoom_unbuilt == "refused":
        if not all(built(state, half) for half in halves(line)):
            return None
    return line


def halves(line: Line) -> list[Line]:
    """A merge's two halves, left first (SPEC 2)."""
    level, index = line
    return [(level - 1, 2 * index), (level - 1, 2 * index + 1)]


def zoom_shown(state: State, line: Line) -> str:
    """What a zoom on `line` (not refused) shows, restated (SPEC 3.5, 10): a
    leaf's message line whole, after `{id}+0|` under `zoom_one: headed`; a
    merge's halves rendered like the view, or their rows alone joined by a
    newline under `zoom_halves: bare`."""
    if line[0] == 0:
        whole = source(state, line)
        return f"{line[1]}+0|{whole}" if state.profile.zoom_one == "headed" else whole
    rows = [(half, shown(state, half)) for half in halves(line)]
    if state.profile.zoom_halves == "bare":
        return "\n".join(f"{name(half)}|{flat(t)}" for half, t in rows)
    return render(state, rows)


def rule(state: State, event: Event) -> str | None:
    """The first rule of SPEC 4.1 that `event` breaks in `state`, restated;
    None when the state allows it."""
    broken = broken_rules(state, event)
    if broken:
        return broken[0]
    if isinstance(event, Start) and plain(event.node) not in queue(state, state.queue.waiting):
        return "queue_order"
    return None


def broken_rules(state: State, event: Event) -> list[str]:
    """Every rule of SPEC 4.1 that `event` breaks in `state`, in SPEC 4.1's
    order, restated; `queue_order`, which a start breaks when it breaks no
    other rule, is left out (`rule` names it)."""
    q, c, p = state.queue, state.constants, state.profile
    running = [plain(n) for n in q.running]
    checks: list[tuple[str, bool]] = []
    match event:
        case Message(kind, body):
            checks = [("kind", kind not in p.kinds), ("utf8", not utf8(body))]
        case Start(node):
            line = plain(node)
            waiting = q.waiting
            held = q.held if p.held_takes_job else ()
            checks = [
                ("self_starts", p.self_calls),
                ("node_exists", span(line)[1] > count(state)),
                ("built_once", built(state, line)),
                ("one_call_per_node", line in running),
                ("need_first", waiting and p.need_first and line not in lines(state.chat.view)),
                ("jobs_bound", len(running) + len(held) >= c.jobs),
                ("retry_waits", line in [plain(n) for n in q.held]),
                (
                    "ahead_bound",
                    line[0] == 0
                    and not (waiting and not p.ahead_in_wait)
                    and p.ahead_limit == "bound"
                    and sum(1 for leaf in leaves_unbuilt(state) if leaf[1] < line[1]) >= c.ahead,
                ),
                (
                    "merge_needs_halves",
                    line[0] > 0
                    and not all(
                        built(state, h)
                        for h in ((line[0] - 1, 2 * line[1]), (line[0] - 1, 2 * line[1] + 1))
                    ),
                ),
            ]
        case End(node, given, replies):
            idle = plain(node) not in running
            texts_in = [given] if given is not None else list(replies or ())
            readable = all(utf8(t) for t in texts_in)
            checks = [
                ("end_needs_running", idle),
                ("utf8", not readable),
                ("line_fits", unfit(state, event, idle, readable)),
            ]
        case Fail(node):
            checks = [("fail_needs_running", plain(node) not in running)]
        case Wait():
            checks = [("one_wait", q.waiting)]
        case Settle():
            unbuilt = any(not built(state, line) for line in lines(state.chat.view))
            checks = [("settle_needs_wait", not q.waiting), ("settle_needs_summaries", unbuilt)]
        case Timeout():
            checks = [("timeout_needs_wait", not q.waiting)]
        case Zoom(id, n):
            checks = [("zoom", not zoom_node(state, bits.to_int(id), bits.to_int(n)))]
    return [name for name, broken in checks if broken]


def unfit(state: State, event: End, idle: bool, readable: bool) -> bool:
    """Whether an end's line does not fit (SPEC 4.1 `line_fits`): it is not
    1 to LINE bytes (NODE, or ⌊NODE × tolerance⌋), or under `overlong:
    kept` it is empty (SPEC 5, 10). For a running call whose texts have a
    UTF-8 form, as `end_outcome` says (the line chosen from its
    conversation, stripped under `trim_lines`, where one left empty fails
    the call instead); else the line given, its bytes counted as written (a
    surrogate too), stripped only for a running call: a call that does not
    run (`idle`) has no source to choose from. `readable`: whether every
    text of the end has a UTF-8 form."""
    c, p = state.constants, state.profile
    if not idle and readable:
        return end_outcome(state, event, p)[0] == "refuse"
    line = event.line
    if line is None:
        return False
    if p.trim_lines and not idle:
        line = strip(line, p)
        if not line:
            return False
    length = len(line.encode("utf-8", "surrogatepass"))
    most = length if p.overlong == "kept" else line_limit(c.node, p)
    return not 1 <= length <= most


def two_rule_events(state: State, last: Event) -> list[Event]:
    """Events made to break two rules of SPEC 4.1 at once in `state`, as the
    corpus's `both` family pairs them, chosen by the event that reached it
    (`last`). After a start, a failure or a retry, starts whose pairs depend
    on the calls: the view's newest built line (`built_once`, with
    `ahead_bound` when unbuilt leaves precede it), and, while JOBS calls run
    or a turn waits (or under `calls: self`, where every start breaks
    `self_starts`), each held node, each running call, the first unbuilt
    leaf past AHEAD and the first merge whose halves are not built. The
    other pairs depend on little of the state, so they are made after a
    message that brings the chat to 1, 2, 4, 8, ... messages: a message of
    no kind with a text of no UTF-8 form; a settle; ends of a call not
    running and of the first running call, with a line of no UTF-8 form, an
    empty one and one over LINE of no UTF-8 form; starts of the first leaf
    and the first merge not logged yet. Which of them break two rules
    there, `broken_rules` says (the nodes are only chosen from the state)."""
    q, c, t = state.queue, state.constants, count(state)
    idle = Node(0, bits.from_int(t))
    starts: list[Node] = []
    events: list[Event] = []
    if isinstance(last, (Start, Fail, Retry)):
        newest = next((n for n in reversed(state.chat.view) if built(state, plain(n))), None)
        starts = [] if newest is None else [newest]
        if len(q.running) >= c.jobs or q.waiting or state.profile.self_calls:
            starts += [*q.held, *q.running, *q.unbuilt[c.ahead :][:1]]
            starts += [nodes.parent(leaf) for leaf in q.unbuilt[:1]]
    elif isinstance(last, Message) and not t & (t - 1):
        bad, over = "a\ud800", "x" * line_limit(c.node, state.profile) + "\ud800"
        events = [Message("none of SPEC's", bad), Settle()]
        events += [End(n, line) for n in (idle, *q.running[:1]) for line in (bad, "", over)]
        starts = [idle, Node(1, bits.from_int(t // 2 + 1))]
    return events + [Start(n) for n in dict.fromkeys(starts)]
