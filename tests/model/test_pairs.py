"""The mergeable pairs a view keeps (model/view.py, SPEC 3.1) are, after any
lines appended, parents built and batches run, exactly the pairs a scan of
the whole view finds; a batch over the kept pairs merges what a batch over
the scanned ones does; and a line is found where it is."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from model import bits
from model import node as nodes
from model import view as views
from model.node import Node
from tests.model.helpers import N

Step = tuple[str, int]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("message", "build", "batch")), st.integers(0, 99))))
def test_the_kept_pairs_are_the_scanned_pairs_and_batch_alike(steps: list[Step]) -> None:
    view: views.View = ()
    pairs: views.Pairs = ()
    built: set[Node] = set()
    count = 0
    for action, number in steps:
        if action == "message":
            leaf = N(0, count)
            count += 1
            if number % 2 and not nodes.is_left(leaf):
                # its parent built before its line is appended, as a free one is (SPEC 2)
                built.add(nodes.parent(leaf))
                pairs = views.with_built(view, pairs, (nodes.parent(leaf),), built.__contains__)
            view = view + (leaf,)
            pairs = views.appended(view, pairs, built.__contains__)
        elif action == "build":
            # an ancestor of a line, one to three levels up, once its messages are logged
            parent = view[number % len(view)] if view else N(0, 0)
            for _ in range(1 + number % 3):
                parent = nodes.parent(parent)
            logged = not bits.less(bits.from_int(count), nodes.end(parent))
            if logged and parent not in built:
                built.add(parent)
                pairs = views.with_built(view, pairs, (parent,), built.__contains__)
        else:
            budget = number % (len(view) + 1)
            scanned = views.fit(view, bits.from_int(count), built.__contains__, lambda _: 1, budget)
            kept = views.fit(
                view, bits.from_int(count), built.__contains__, lambda _: 1, budget, pairs=pairs
            )
            assert kept == scanned
            view, pairs = kept.view, kept.pairs
        assert pairs == views.mergeable_pairs(view, built.__contains__)


def _tiling(levels: list[int]) -> tuple[tuple[Node, ...], int]:
    """A view tiling the chat from message 0, each line at the level drawn or
    the highest below it that its start allows (SPEC 2), and its count."""
    view: list[Node] = []
    count = 0
    for level in levels:
        while count % (1 << level):
            level -= 1
        view.append(N(level, count >> level))
        count += 1 << level
    return tuple(view), count


@given(st.lists(st.integers(0, 4), min_size=1, max_size=40))
def test_a_line_is_found_by_halving_and_no_other_node_is(levels: list[int]) -> None:
    tiling, _ = _tiling(levels)
    for k, line in enumerate(tiling):
        assert views.position(tiling, line) == k
        assert views.line_at(tiling, nodes.first(line)) == k
        if line.level > 0:
            assert views.position(tiling, nodes.halves(line)[0]) is None
        assert views.position(tiling, nodes.parent(line)) is None


def _due(pair: Node, count: int) -> Fraction:
    """`(T - last) / 2^l`, with `last = (i+2)*2^l - 1`, as an exact fraction (SPEC 3.1)."""
    last = (bits.to_int(pair.index) + 2) * (1 << pair.level) - 1
    return Fraction(count - last, 1 << pair.level)


@given(st.lists(st.integers(0, 4), min_size=2, max_size=60), st.integers(0, 40))
def test_the_most_due_pair_is_the_oldest_of_the_greatest_exact_due(
    levels: list[int], later: int
) -> None:
    view, count = _tiling(levels)
    pairs = views.mergeable_pairs(view, lambda _: True)
    heads = views.level_heads(pairs)
    for pair in pairs:
        head = next(h for h in heads if h.level == pair.level)
        assert head == pair or _due(head, count + later) > _due(pair, count + later)
    dues = [_due(pair, count + later) for pair in pairs]
    expected = pairs[dues.index(max(dues))] if pairs else None
    assert views.most_due_of(pairs, bits.from_int(count + later)) == expected
