from fractions import Fraction
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from laws.proofs import link
from laws.proofs.due import prove_division_free, prove_index_order, prove_machine_compare
from laws.proofs.push_always import prove_push_always
from laws.push.counter import stack
from laws.registry import Broken, Held, Profile, check_law, proved, settings_for, statement_of
from laws.spec import lines
from model import bits, push
from model import view as views
from model.node import Node


def one_step(t: int) -> None:
    """From push's lines at t, one agree step gives push's lines at t + 1."""
    before = stack(t + 1)
    after = push.push(before, bits.from_int(t + 1))
    assert after == stack(t + 2), f"push's list at t = {t + 1} is not the counter's"
    count = bits.from_int(t + 2)
    view = push.agree_step(push.lines(before, bits.from_int(t + 1)), after, count)
    assert view == push.lines(after, count), (
        f"t = {t + 1}: view {lines(view)}, push {lines(push.lines(after, count))}"
    )


@st.composite
def tiled(draw: st.DrawFn) -> tuple[int, tuple[Node, ...]]:
    """A chat size T and a view tiling 0..T-1 with lines of any level."""
    count = draw(st.integers(1, 4_000))
    view, at = [], 0
    while at < count:
        level = draw(st.integers(0, 11))
        while at % (2**level) or at + 2**level > count:
            level -= 1
        view.append(Node(level, bits.from_int(at >> level)))
        at += 2**level
    return count, tuple(view)


def oldest_most_due(count: int, view: tuple[Node, ...]) -> int | None:
    """The most due pair by exact rational dues, the oldest among equals."""
    best, best_due = None, None
    for k, (a, b) in enumerate(pairwise(view)):
        i = bits.to_int(a.index)
        if a.level == b.level and i % 2 == 0 and bits.to_int(b.index) == i + 1:
            due = Fraction(count - ((i + 2) * 2**a.level - 1), 2**a.level)
            if best_due is None or due > best_due:
                best, best_due = k, due
    return best


def due_order(count: int, view: tuple[Node, ...]) -> None:
    chosen = views.most_due(view, bits.from_int(count), lambda _: True)
    assert chosen == oldest_most_due(count, view), (
        f"T = {count}, view {lines(view)}: the model merges at {chosen}, "
        f"the greatest due (oldest among equals) is at {oldest_most_due(count, view)}"
    )


@check_law
def push_agrees_always(profile: Profile) -> Held:
    """With push's length as the budget, the due order makes exactly push's
    merges at every t of any number of pushes."""
    strength = proved(
        push_agrees_always,
        prove_push_always(),
        prove_division_free(),
        prove_index_order(),
        prove_machine_compare(),
    )
    pairs, states, symbolic = link.linked(
        push_agrees_always,
        lambda: link.pairs(profile, ["last", "index", "tie", "lift", "machine"]),
        lambda: link.push_states(profile),
        lambda: link.crosshair_due(profile),
    )
    checks = settings_for(profile, profile.always_examples)
    try:
        checks(given(st.integers(0, 10**6))(one_step))()
        # Equal dues (T = 7: pair 0-3 and pair 4-5 are both due 2) go to the oldest.
        due_order(
            7,
            tuple(Node(lv, bits.from_int(i)) for lv, i in [(1, 0), (1, 1), (0, 4), (0, 5), (0, 6)]),
        )
        checks(given(tiled())(lambda case: due_order(*case)))()
    except AssertionError as error:
        raise Broken("push_agrees_always", statement_of(push_agrees_always), str(error)) from None
    return Held(
        f"{strength}; linked to the model: the proofs' due forms, tie rule, lifted pairs and "
        f"64-bit compare on {pairs}, push_always's digits, budget and new pair at {states}, "
        f"{symbolic}; on the model: one step from push at {profile.always_examples} t <= 10^6, "
        f"the due order against exact dues on {profile.always_examples} views"
    )
