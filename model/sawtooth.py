"""When the chat view merges: the sawtooth (SPEC 3.3)."""

from __future__ import annotations

from dataclasses import dataclass

from model import tree as trees
from model import view as views
from model.bits import Bits
from model.constants import PLACEHOLDER
from model.node import Node
from model.profile import Profile
from model.tree import Tree
from model.view import Pairs, View


@dataclass(frozen=True, slots=True)
class Sawtooth:
    """A view with its shrinking flag (SPEC 3.3), the parents the last batch
    made (empty when no batch ran), and, kept with the view because every
    message and every turn reads them, its size in bytes (SPEC 3) and its
    mergeable pairs (SPEC 3.1)."""

    view: View
    shrinking: bool
    merges: tuple[Node, ...] = ()
    size: int = 0
    pairs: Pairs = ()


def receive(
    saw: Sawtooth,
    leaf: Node,
    count: Bits,
    tree: Tree,
    ceiling: int,
    floor: int,
    profile: Profile,
) -> Sawtooth:
    """A message appends its leaf line; when the view is then over `ceiling`,
    or still shrinking, one batch merges it down to `floor`, and it is
    shrinking when the batch stops above `floor` (SPEC 3.3)."""
    grown = saw.view + (leaf,)
    size = saw.size + views.line_size(tree, leaf, profile)
    pairs = views.appended(grown, saw.pairs, lambda n: trees.is_built(tree, n))
    if not (saw.shrinking or size > ceiling):
        return Sawtooth(grown, False, (), size, pairs)
    return batch(Sawtooth(grown, saw.shrinking, (), size, pairs), count, tree, floor, profile)


def batch(saw: Sawtooth, count: Bits, tree: Tree, floor: int, profile: Profile) -> Sawtooth:
    """One batch: the most due mergeable pair merged while the view is over
    `floor` (SPEC 3.1, 3.3)."""
    return batched(
        views.fit_bytes(saw.view, count, tree, floor, saw.size, saw.pairs, profile), floor
    )


def batched(batch: views.Fit, floor: int) -> Sawtooth:
    """The view a batch to `floor` left, shrinking when it stopped above
    `floor` (SPEC 3.3)."""
    return Sawtooth(batch.view, batch.weight > floor, batch.merges, batch.weight, batch.pairs)


def resized(saw: Sawtooth, tree: Tree, built: tuple[Node, ...], profile: Profile) -> Sawtooth:
    """The same view after `built` were built: a built line replaces its
    placeholder, which changes only the size, and a pair whose parent was
    built becomes mergeable (SPEC 3.1, 3.3)."""
    change = sum(
        views.line_size(tree, node, profile)
        - views.in_row(views.measured(PLACEHOLDER, profile), node, profile)
        for node in built
        if views.position(saw.view, node) is not None
    )
    pairs = views.with_built(saw.view, saw.pairs, built, lambda n: trees.is_built(tree, n))
    return Sawtooth(saw.view, saw.shrinking, saw.merges, saw.size + change, pairs)
