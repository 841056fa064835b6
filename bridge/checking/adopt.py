"""Seeing past a difference (issue 44): where an engine's answer differs in
a way that does not decide the rules still to come, the replay takes the
engine's value into the model's state and goes on comparing (`corpus
--keep-going`, `compare --keep-going`; bridge/PROTOCOL.md, "Adoption").

What can be adopted, and what the model's state takes:

- `line`: the engine's text of a line both sides installed at the same
  event (an `end`, or a `fail` that reached the failure cap); where the
  line was chosen from replies or cut from the source, only a text of the
  same size as the model's (the same choice, stored otherwise: a line of
  another size is another choice, SPEC 5's rules, not adopted). The model's
  state is the one the event makes when it ends the call with the engine's
  line (`machine.step` with `End(node, line)`), so the node, the free parents
  above it, the queue and both views' sizes follow from the engine's text by
  SPEC's rules. A line the model refuses (SPEC 5: over LINE bytes) is not
  adopted.
- `size`: the chat view's size as the engine measures it. The model's
  chat sawtooth takes it as its size; the next message's batch is decided
  on it, as the engine decides its own (SPEC 3.3).
- the views (`shrinking`, `merges`, `cmerges`, `view_digest`,
  `cview_digest`, `view`, `cview`): a batch run at another moment. The
  model's view (the chat view, the compaction view, or both: each only
  where its own fields differ) becomes the engine's: the whole view its
  answer gives after a batch, or, when it gives none, the view the engine
  had before with the message's leaf appended and the merges it names
  made, when the digest says that is it. A view must tile the chat's
  messages with merged lines that are built (SPEC 3, 3.1); its mergeable
  pairs are the model's for it, and a chat view taken keeps the size the
  engine gives with it. The compaction view's shrinking flag, which no
  answer shows, stays the model's.

Nothing else is adopted: a refusal, a call started, a queue, a zoom, a
render or a context differ by the rules themselves. So do a line one side
installs and the other does not, and a view no answer makes known.

Why later comparisons still mean what they say: after an adoption the
model's state is the engine's as far as its answers show it, and every later
answer is what SPEC's rules make of that state. A later difference is then
the engine's own rules differing, not the echo of an earlier one. Each
adopted difference is still reported where it first shows (the scenario's
first divergence, FAIL as before); every event compared after the first
adoption is counted as such (bridge/checking/coverage.py `adopted`), and a
difference that cannot be adopted after one is reported as a divergence
after adoption.

The model stays pure: its next state is built from the engine's values by
model functions (`machine.step`, `Sawtooth`, `views.size`,
`views.mergeable_pairs`), the states before left as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from bridge.wire import observe
from bridge.wire.inprocess import ModelEngine, model_event
from model import bits, machine
from model import node as nodes
from model import text as texts
from model import tree as trees
from model import view as views
from model.bits import Bits
from model.errors import Refused
from model.events import End
from model.node import Node
from model.profile import Profile
from model.sawtooth import Sawtooth
from model.tree import Tree
from scenarios.format import Scenario

LINE = ("line",)
SIZE = ("size",)
VIEWS = ("shrinking", "merges", "view_digest", "view")
CVIEWS = ("cmerges", "cview_digest", "cview")
ADOPTABLE = LINE + SIZE + VIEWS + CVIEWS
"""The answer fields whose difference can be adopted."""


def nodes_of(given: Any, count: int) -> tuple[Node, ...] | None:
    """`[[level, index], ...]` as model nodes, or None when it is not one, or
    names a node higher than a chat of `count` messages has."""
    if not isinstance(given, list):
        return None
    top = count.bit_length()
    out = []
    for pair in given:
        if not (isinstance(pair, list) and len(pair) == 2):
            return None
        level, index = pair
        if not all(type(v) is int and v >= 0 for v in pair) or level > top:
            return None
        out.append(Node(level, bits.from_int(index)))
    return tuple(out)


def tiles(view: tuple[Node, ...], count: Bits, tree: Tree) -> bool:
    """Whether a view tiles the chat's messages, oldest first, with every
    merged line built (SPEC 3, 3.1: a pair merges only once its parent is)."""
    at = bits.ZERO
    for line in view:
        if nodes.first(line) != at or (line.level and not trees.is_built(tree, line)):
            return False
        at = nodes.end(line)
    return at == count


def merged(view: tuple[Node, ...], made: tuple[Node, ...]) -> tuple[Node, ...] | None:
    """A view with the parents `made` merged into it in turn, each in place
    of its two halves (SPEC 3.1); None when a parent's halves are not two
    lines of it."""
    for parent in made:
        if parent.level == 0:
            return None
        left, right = nodes.halves(parent)
        k = views.position(view, left)
        if k is None or k + 1 >= len(view) or view[k + 1] != right:
            return None
        view = views.merge(view, k)
    return view


def sawtooth(
    view: tuple[Node, ...], shrinking: bool, made: tuple[Node, ...], tree: Tree, profile: Profile
) -> Sawtooth:
    """A view taken from the engine, as the model keeps one (SPEC 3.1, 3.3),
    measured as the profile measures (SPEC 10)."""
    built = lambda n: trees.is_built(tree, n)  # noqa: E731
    size = views.size(view, tree, profile)
    return Sawtooth(view, shrinking, made, size, views.mergeable_pairs(view, built))


Adopting = Callable[[list[dict[str, Any]]], "Shadow"]
"""What makes a replay's shadow from the lines sent before its first adoption."""


class Shadow:
    """The model under the engine's profile, fed every line sent, whose state
    takes the engine's values where they are adopted: the expected answers
    once a replay adopted something."""

    def __init__(
        self,
        profile: Profile,
        scenario: Scenario,
        left_out: Collection[str],
        lines: list[dict[str, Any]],
    ) -> None:
        self.left_out = frozenset(left_out)
        """The fields not compared (of a capability the engine lacks): never adopted."""
        self.model = ModelEngine(profile)
        self.model.start(scenario)
        for line in lines:
            self.answer(line)

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        """The model's answer to the next line (kept as `expected`); the
        state before it is kept too."""
        self.before = self.model.state
        self.expected = self.model.answer(line)
        return self.expected

    def adopt(
        self, line: dict[str, Any], expected: dict[str, Any], found: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The expected answer to `line` once the model's state took the
        engine's values (`found`) in the adoptable fields where they differ
        from the model's (`expected`); None when one of them cannot be
        adopted, or the answers differ in nothing adoptable."""
        if "refused" in expected or "refused" in found or "event" not in line:
            return None
        fields = [
            name
            for name in ADOPTABLE
            if name not in self.left_out and expected.get(name) != found.get(name)
        ]
        before, after = self.before, self.model.state
        event = model_event(line, line["at"])
        taken = False
        if "line" in fields:
            if (installed := self.line(line, expected, found)) is None:
                return None
            after, taken = installed, True
        count = bits.to_int(after.count)
        grew = line.get("event") == "message"
        chat = any(name in VIEWS for name in fields)
        if chat:
            shrinking = found.get("shrinking")
            view = self.view(before.chat, after, found, "view", "merges", count, grew)
            if view is None or type(shrinking) is not bool:
                return None
            saw = sawtooth(view[0], shrinking, view[1], after.tree, after.profile)
            after, taken = replace(after, chat=saw), True
        if any(name in CVIEWS for name in fields):
            view = self.view(before.compaction, after, found, "cview", "cmerges", count, grew)
            if view is None:
                return None
            saw = sawtooth(view[0], after.compaction.shrinking, view[1], after.tree, after.profile)
            after, taken = replace(after, compaction=saw), True
        if "size" in fields or chat:  # a view taken is measured as the engine measures it
            size = found.get("size")
            if type(size) is not int or size < 0:
                return None
            after, taken = replace(after, chat=replace(after.chat, size=size)), True
        if not taken:
            return None
        self.model.state = after
        return self.model.observer.accepted(before, event, after)

    def line(
        self, line: dict[str, Any], expected: dict[str, Any], found: dict[str, Any]
    ) -> machine.State | None:
        """The state after the call ends with the engine's line, when both
        sides installed one at this event and the model takes it."""
        text = found.get("line")
        if not (isinstance(text, str) and "line" in expected and "node" in line):
            return None
        if "line" not in line and texts.size(text) != texts.size(str(expected["line"])):
            return None  # chosen from replies or cut at the cap, of another size: another choice
        node = Node(line["node"][0], bits.from_int(line["node"][1]))
        try:
            return machine.step(self.before, End(node, text))
        except Refused:
            return None

    @staticmethod
    def view(
        was: Sawtooth,
        after: machine.State,
        found: dict[str, Any],
        name: str,
        made_name: str,
        count: int,
        grew: bool,
    ) -> tuple[tuple[Node, ...], tuple[Node, ...]] | None:
        """The engine's view `name` and the merges it made: the whole view its
        answer gives, else the one it had before (`was`), with the message's
        leaf appended and the merges it names made, when its digest is the
        engine's; None otherwise."""
        made = nodes_of(found.get(made_name), count)
        if made is None:
            return None
        if name in found:
            view = nodes_of(found[name], count)
        else:
            leaf = (nodes.leaf(bits.from_int(count - 1)),) if grew else ()
            view = merged(was.view + leaf, made)
            digest = found.get(f"{name}_digest")
            if view is not None and digest != observe.digest(observe.pairs(view)):
                return None
        if view is None or not tiles(view, after.count, after.tree):
            return None
        return view, made
