"""The links of laws/proofs/link.py hold on the model and catch a model that
differs from the proofs' restatements (SPEC 3.1, 3.2, 8); the proofs' terms
evaluate to what SPEC says on its own examples.

A broken model is made here by patching a model function where the link
calls it; the scratch-copy runs of the deliberate breaks (laws/mutants.py)
check the same through the laws.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from fractions import Fraction

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from laws.proofs import contracts, example10, link
from laws.proofs.concrete import Terms
from laws.proofs.due import Form
from laws.proofs.push_bounded import step_at
from laws.push.counter import digits
from laws.registry import PROFILES, Broken
from model import bits, push
from model import due as model_due
from model import view as views
from model.bits import Bits
from model.node import Node

FEW = dataclasses.replace(PROFILES["ci"], always_examples=90, push_k=6)
"""A small run: 90 generated pairs, 30 views and push states."""


def due(count: int, line: tuple[int, int]) -> Fraction:
    """SPEC 3.1's due of the pair whose left line is `line`, exactly."""
    level, index = line
    return Fraction(count - ((index + 2) * 2**level - 1), 2**level)


def t_for_t_plus_one(count: Bits, a: Node, b: Node) -> bool:
    """The due compare with T for T + 1 (a deliberate break of SPEC 9)."""
    return model_due.more_due(bits.sub(count, bits.ONE), a, b) if count else False


def newest_among_equals(view, count, built, order=model_due.more_due):  # noqa: ANN001, ANN201
    """most_due breaking ties toward the newest pair (a deliberate break of SPEC 9)."""
    best = None
    for k in range(len(view) - 1):
        if views.is_mergeable(view, k, built) and (
            best is None or not order(count, view[best], view[k])
        ):
            best = k
    return best


@pytest.fixture(autouse=True)
def fresh_answers() -> Iterator[None]:
    """Answers are cached per input; a patched model must not reuse them."""
    link._pair_answers.cache_clear()
    link._view_answers.cache_clear()
    yield
    link._pair_answers.cache_clear()
    link._view_answers.cache_clear()


# The links hold on the model.


def test_links_hold_on_the_model() -> None:
    assert "pairs of pairs" in link.pairs(FEW, list(link.PAIR_CHECKS))
    assert "views" in link.views_link(FEW)
    assert "every t <= 62" in link.push_steps(FEW)
    assert "t < 2^20" in link.push_states(FEW)
    assert "t = 0..10" in link.example_runs()


def test_every_small_pair_of_pairs_is_compared() -> None:
    # At T = 4 the only two pairs of a view are 0+1,1+1 and 2+1,3+1.
    small = list(link.small_pairs())
    assert [c for c in small if c.count == 4] == [link.PairCase(4, (0, 0), (0, 2))]
    assert all(c.count <= link.SMALL_T for c in small)
    assert all(link.pair_end(c.older) <= c.newer[1] << c.newer[0] for c in small)
    assert all(link.pair_end(c.newer) <= c.count for c in small)
    assert len(set(small)) == len(small)


# The links catch a model that differs.


def test_due_without_the_shift_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_due, "more_due", t_for_t_plus_one)
    for check in ("last", "index", "bits", "machine"):
        link._pair_answers.cache_clear()
        with pytest.raises(link.Unlinked, match="the proof's terms give"):
            link.pairs(FEW, [check])


def test_due_from_first_as_the_last_form_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    # The proofs' Form.FIRST against the order first_merges_0_7 runs on the model.
    monkeypatch.setattr(link, "due_from_first", model_due.more_due)
    with pytest.raises(link.Unlinked, match="due from first"):
        link.pairs(FEW, ["first"])


def test_ties_toward_the_newest_are_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "most_due", newest_among_equals)
    for check in ("tie", "bits"):
        link._pair_answers.cache_clear()
        with pytest.raises(link.Unlinked, match="newer"):
            link.pairs(FEW, [check])
    with pytest.raises(link.Unlinked, match="the most due pair"):
        link.views_link(FEW)


def test_a_fit_past_its_budget_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    real = views.fit

    def one_more(view, count, built, weight, budget, order=model_due.more_due):  # noqa: ANN001, ANN202
        return real(view, count, built, weight, budget - 1, order)

    monkeypatch.setattr(views, "fit", one_more)
    with pytest.raises(link.Unlinked, match="the fit's merges"):
        link.views_link(FEW)
    with pytest.raises(link.Unlinked, match="stops"):
        link.push_steps(FEW)
    with pytest.raises(link.Unlinked, match="one merge, then stop"):
        link.push_states(FEW)


def test_merging_into_unbuilt_parents_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "is_mergeable", lambda view, k, built: views.is_pair(view, k))
    with pytest.raises(link.Unlinked, match="candidate pairs"):
        link.views_link(FEW)


def test_a_budget_one_over_push_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    def over(view, stack, count, order=model_due.more_due):  # noqa: ANN001, ANN202
        return views.fit(
            (*view, Node(0, bits.sub(count, bits.ONE))),
            count,
            lambda _: True,
            lambda _: 1,
            len(stack) + 1,
            order,
        ).view

    monkeypatch.setattr(push, "agree_step", over)
    with pytest.raises(link.Unlinked, match="merged"):
        link.push_steps(FEW)
    with pytest.raises(link.Unlinked, match="example10 runs"):
        link.example_runs()


def test_a_choice_blind_to_dues_is_unlinked(monkeypatch: pytest.MonkeyPatch) -> None:
    def oldest(view, count, built, order=model_due.more_due):  # noqa: ANN001, ANN202
        return next((k for k in range(len(view) - 1) if views.is_mergeable(view, k, built)), None)

    monkeypatch.setattr(views, "most_due", oldest)
    with pytest.raises(link.Unlinked, match="new pair beats"):
        link.push_states(FEW)
    with pytest.raises(link.Unlinked, match="choice"):
        link.push_steps(FEW)


def test_the_crosshair_contract_holds_on_its_whole_domain() -> None:
    domain = itertools.product(range(2**5), range(3), range(0, 8, 2), range(3), range(0, 8, 2))
    assert all(contracts.due_agrees(*case) for case in domain)


def test_the_crosshair_contract_fails_without_the_shift(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_due, "more_due", t_for_t_plus_one)
    domain = itertools.product(range(2**5), range(3), range(0, 8, 2), range(3), range(0, 8, 2))
    assert not all(contracts.due_agrees(*case) for case in domain)


# The generated inputs are what they say.


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(link.tied_pairs([0]))
def test_tied_pairs_are_equally_due(case: link.PairCase) -> None:
    assert due(case.count, case.older) == due(case.count, case.newer)
    assert case.older[0] > case.newer[0]
    assert link.pair_end(case.older) <= case.newer[1] << case.newer[0]
    assert link.pair_end(case.newer) <= case.count


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(st.one_of(link.any_pairs(), link.tied_pairs()))
def test_a_pair_case_view_tiles_the_chat_and_holds_both_pairs(case: link.PairCase) -> None:
    view, at = case.view(), 0
    for level, index in view:
        assert index << level == at
        at += 1 << level
    assert at == case.count
    for level, index in (case.older, case.newer):
        k = view.index((level, index))
        assert view[k + 1] == (level, index + 1)


# The proofs' terms at SPEC's own examples.


def test_the_step_at_t_9_is_spec_3_2s_example() -> None:
    # SPEC 3.2: at T = 10 the view 0+4, 4+4, 8+1, 9+1 with 3 lines of budget
    # merges 8+1, 9+1, as push does.
    step = step_at(digits(9), 14)
    assert step.after == ["0+4", "4+4", "8+1", "9+1"]
    assert step.choice == "8+1"
    assert step.budget == 3
    assert step.merged == step.pushed == ["0+4", "4+4", "8+2"]


def test_equal_dues_go_to_the_oldest_pair() -> None:
    # SPEC 3.1 at T = 7: pairs 0-3 and 4-5 are both due 2, 6 has no sibling.
    view = [(1, 0), (1, 1), (0, 4), (0, 5), (0, 6)]
    assert example10.decide(view, 7, Form.LAST) == ([0, 2], [0])


def test_an_unbuilt_parent_makes_no_candidate() -> None:
    view = [(1, 0), (1, 1), (0, 4), (0, 5), (0, 6)]
    built = {(1, 2)}.__contains__
    assert example10.decide(view, 7, Form.LAST, built) == ([2], [2])


def test_terms_evaluate_as_python_computes() -> None:
    x, y = z3.BitVecs("x y", 8)
    flag = z3.Bool("flag")
    terms = Terms([x + y, z3.And(flag, z3.ULT(x, y)), x << 3], [x, y, flag])
    assert terms.at([200, 100, True]) == [(200 + 100) % 256, 0, (200 << 3) % 256]
    assert terms.at([3, 5, True]) == [8, 1, 24]


def test_terms_left_symbolic_are_refused() -> None:
    x, y = z3.BitVecs("x y", 8)
    with pytest.raises(ValueError):
        Terms([x + y], [x]).at([1])


def test_a_difference_breaks_the_law_naming_it() -> None:
    def a_law() -> None:
        """Says something."""

    def differs() -> str:
        raise link.Unlinked("T = 7: they differ")

    with pytest.raises(Broken) as caught:
        link.linked(a_law, lambda: "fine", differs)
    assert caught.value.law == "a_law"
    assert "T = 7: they differ" in caught.value.counterexample
