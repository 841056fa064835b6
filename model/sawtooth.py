"""When the chat view merges: the sawtooth (SPEC 3.3)."""

from __future__ import annotations

from dataclasses import dataclass

from model import view as views
from model.bits import Bits
from model.node import Node
from model.tree import Tree
from model.view import View


@dataclass(frozen=True, slots=True)
class Sawtooth:
    """A view with its shrinking flag (SPEC 3.3), and the parents the last
    batch made (empty when no batch ran)."""

    view: View
    shrinking: bool
    merges: tuple[Node, ...] = ()


def receive(
    saw: Sawtooth, leaf: Node, count: Bits, tree: Tree, ceiling: int, floor: int
) -> Sawtooth:
    """A message appends its leaf line; when the view is then over `ceiling`,
    or still shrinking, one batch merges it down to `floor`, and it is
    shrinking when the batch stops above `floor` (SPEC 3.3)."""
    grown = saw.view + (leaf,)
    if not (saw.shrinking or views.size(grown, tree) > ceiling):
        return Sawtooth(grown, False)
    batch = views.fit_bytes(grown, count, tree, floor)
    return Sawtooth(batch.view, views.size(batch.view, tree) > floor, batch.merges)
