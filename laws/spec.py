"""The vocabulary the laws speak in, stated on plain integers so that a law
does not reuse the model function it checks (after eukhe's laws/base)."""

from __future__ import annotations

from model import bits, machine
from model import text as texts
from model.events import Message
from model.machine import State
from model.node import Node

Line = tuple[int, int]


def plain(node: Node) -> Line:
    """A node as `(level, index)` integers."""
    return node.level, bits.to_int(node.index)


def lines(view: tuple[Node, ...]) -> list[Line]:
    return [plain(n) for n in view]


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
    level, index = line
    return machine.text(state, Node(level, bits.from_int(index))) is not None


def line_size(state: State, line: Line) -> int:
    level, index = line
    text = machine.text(state, Node(level, bits.from_int(index)))
    return 29 if text is None else texts.size(text)


def view_size(state: State, view: tuple[Node, ...]) -> int:
    return sum(line_size(state, line) for line in lines(view))


def mergeable_pairs(state: State, view: tuple[Node, ...]) -> list[int]:
    """Positions k where lines k, k+1 are siblings (l, 2j), (l, 2j+1) with a built parent."""
    out = []
    plain_view = lines(view)
    for k in range(len(plain_view) - 1):
        (la, ia), (lb, ib) = plain_view[k], plain_view[k + 1]
        if la == lb and ia % 2 == 0 and ib == ia + 1 and built(state, (la + 1, ia // 2)):
            out.append(k)
    return out


def batch_due(step_before: State, event: object) -> bool:
    """Whether a message starts a batch: the view is shrinking, or over CEILING
    once the message's line is appended (SPEC 3.3)."""
    if not isinstance(event, Message):
        return False
    if step_before.chat.shrinking:
        return True
    line = f"{event.kind}: {event.text}"
    leaf = 29 if texts.size(line) > step_before.constants.node else texts.size(line)
    return view_size(step_before, step_before.chat.view) + leaf > step_before.constants.ceiling


def name(line: Line) -> str:
    first, end = span(line)
    return f"{first}+{end - first}"


def replay_merges(step_before: State, event: Message, merges: tuple[Node, ...]) -> list[list[Line]]:
    """The views a batch passes through: the old view with the message's leaf
    appended, then each logged merge applied to the pair of its two halves.
    Raises AssertionError naming a merge whose halves are not adjacent lines."""
    view = lines(step_before.chat.view) + [(0, count(step_before))]
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


def context_end(line: Line) -> int:
    """Where a node's context stops (SPEC 3.4): i for a leaf, its end for a merge."""
    level, index = line
    return index if level == 0 else span(line)[1]
