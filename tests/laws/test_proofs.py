"""The Z3 proofs of laws/proofs hold for SPEC 3.1's planner and break, with a
counterexample that names its values, for the deliberate breaks of SPEC 9.

The push_agrees runs for the breaks use k = 6 (every t <= 126): each break
they catch is caught within t <= 9, and a smaller k keeps this file fast.
The full bound (k = 14) is proved once, through the two-process path.
"""

from __future__ import annotations

import pytest

from laws.proofs.due import (
    Form,
    prove_division_free,
    prove_index_order,
    prove_machine_compare,
)
from laws.proofs.example10 import (
    first_is_not_last,
    first_leaves_push,
    first_merges_0_7,
    last_merges_8_9,
)
from laws.proofs.push_always import prove_push_always
from laws.proofs.push_bounded import Tie, prove_push_bounded
from laws.proofs.result import Proof

WRONG_FORMS = [Form.T_FOR_T1, Form.T_PLUS_2, Form.FIRST, Form.SWAPPED, Form.LAST_FOR_E]
# Forms that order differently from the dues but still make push's merge at
# every step (LAWS-DESIGN; LAST_FOR_E compares as T + 2 does).
AGREE_WITH_PUSH = [Form.T_PLUS_2, Form.LAST_FOR_E]
CAUGHT_BY_PUSH = [Form.T_FOR_T1, Form.FIRST, Form.SWAPPED]


def proved(proof: Proof) -> None:
    assert proof.holds, proof.counterexample
    assert proof.counterexample is None
    assert proof.strength.startswith(("proved", "checked", "the example"))


def refuted(proof: Proof, *named: str) -> None:
    assert not proof.holds and proof.decided
    assert proof.counterexample is not None
    for text in named:
        assert text in proof.counterexample, proof.counterexample


# due.py: SPEC 3.1's comparison.


def test_division_free_equals_rational_due() -> None:
    proof = prove_division_free()
    proved(proof)
    assert "universally" in proof.strength


@pytest.mark.parametrize("form", WRONG_FORMS, ids=lambda f: f.name)
def test_wrong_form_is_not_the_rational_due(form: Form) -> None:
    refuted(prove_division_free(form), "T = ", "pair a: 2^l = ", "pair b: 2^l = ", "due ")


def test_without_the_shift_the_smallest_counterexample_is_small() -> None:
    # T for T + 1 misorders a level-0 pair against a level-1 pair already at T = 4.
    proof = prove_division_free(Form.T_FOR_T1)
    refuted(proof, "T = 4;", "2^l = 1", "2^l = 2")


def test_index_form_needs_tree_pairs() -> None:
    with pytest.raises(ValueError):
        prove_division_free(Form.INDEX)


@pytest.mark.parametrize("form", [Form.INDEX, Form.LAST], ids=lambda f: f.name)
def test_index_key_gives_the_due_order(form: Form) -> None:
    proved(prove_index_order(form))


@pytest.mark.parametrize("form", WRONG_FORMS, ids=lambda f: f.name)
def test_wrong_form_is_not_the_index_order(form: Form) -> None:
    refuted(prove_index_order(form), "T = ", "messages ")


def test_machine_compare_fits_64_bits_below_2_to_32() -> None:
    proof = prove_machine_compare()
    proved(proof)
    assert "T < 2^32" in proof.strength


def test_machine_compare_overflows_with_t_below_2_to_33() -> None:
    refuted(prove_machine_compare(t_bits=33), "T = ", "does not overflow 64 bits", "l_b = ")


# push_bounded.py: push_agrees by the inductive step.


def test_push_agrees_over_two_processes() -> None:
    """The proof's digits split over two processes proves what one does (the
    laws prove the CI profile's 14 digits, t <= 32,766; 8 digits here)."""
    proof = prove_push_bounded(k=8, processes=2)
    proved(proof)
    assert "t <= 510" in proof.strength


def test_push_agrees_with_the_index_form() -> None:
    proved(prove_push_bounded(k=6, processes=1, form=Form.INDEX))


@pytest.mark.parametrize("form", CAUGHT_BY_PUSH, ids=lambda f: f.name)
def test_wrong_form_leaves_push_at_t_9(form: Form) -> None:
    proof = prove_push_bounded(k=6, processes=1, form=form)
    refuted(proof, "t = 9 (T = 10)", "0+4, 4+4, 8+1, 9+1", "the merge is push's")


def test_budget_push_length_plus_one_breaks_push_agrees() -> None:
    proof = prove_push_bounded(k=6, processes=1, budget_offset=1)
    refuted(proof, "t = 1 (T = 2)", "the planner merges nothing", "merges exactly when push does")


def test_budget_push_length_minus_one_breaks_push_agrees() -> None:
    proof = prove_push_bounded(k=6, processes=1, budget_offset=-1)
    refuted(proof, "t = 3 (T = 4)", "the planner stops after it")


@pytest.mark.parametrize("form", AGREE_WITH_PUSH, ids=lambda f: f.name)
def test_push_agrees_does_not_catch(form: Form) -> None:
    proved(prove_push_bounded(k=6, processes=1, form=form))


def test_push_agrees_does_not_catch_newest_ties() -> None:
    proved(prove_push_bounded(k=6, processes=1, tie=Tie.NEWEST))


# push_always.py: push_agrees_always by induction over the digits.


def test_push_agrees_always() -> None:
    proof = prove_push_always()
    proved(proof)
    assert "every t" in proof.strength


def test_push_agrees_always_with_the_index_form() -> None:
    proved(prove_push_always(Form.INDEX))


@pytest.mark.parametrize("form", CAUGHT_BY_PUSH, ids=lambda f: f.name)
def test_wrong_form_breaks_push_agrees_always(form: Form) -> None:
    refuted(prove_push_always(form), "new pair beats every older pair", "T' = ", "p_old = ")


@pytest.mark.parametrize("offset", [1, -1])
def test_wrong_budget_breaks_push_agrees_always(offset: int) -> None:
    refuted(prove_push_always(budget_offset=offset), "one merge, then stop", "n = ")


@pytest.mark.parametrize("form", AGREE_WITH_PUSH, ids=lambda f: f.name)
def test_push_agrees_always_proof_breaks_on_a_form_that_agrees(form: Form) -> None:
    # The lift step needs the comparison to scale with the count: T + 2 does
    # not, although it agrees with push (see the bounded proof).
    refuted(prove_push_always(form), "lift keeps the order", "X = ")


def test_push_agrees_always_does_not_catch_newest_ties() -> None:
    proved(prove_push_always(tie=Tie.NEWEST))


# example10.py: the T = 10 example.


def test_example_laws_hold() -> None:
    proved(last_merges_8_9())
    proved(first_merges_0_7())
    proved(first_is_not_last())
    proof = first_leaves_push()
    proved(proof)
    assert "t = 9" in proof.strength


@pytest.mark.parametrize("form", [Form.FIRST, Form.T_FOR_T1, Form.SWAPPED], ids=lambda f: f.name)
def test_wrong_form_merges_0_7_in_the_example(form: Form) -> None:
    refuted(last_merges_8_9(form), "T = 10", "budget 3", "merges 0+4, 4+4")


@pytest.mark.parametrize("form", AGREE_WITH_PUSH, ids=lambda f: f.name)
def test_example_does_not_catch(form: Form) -> None:
    proved(last_merges_8_9(form))


def test_due_from_first_as_last_breaks_the_example_laws() -> None:
    refuted(first_is_not_last(last=Form.FIRST), "merges 0+4, 4+4")
    refuted(
        first_leaves_push(last=Form.FIRST),
        "leaves push: at t = 9",
        "0+8, 8+1, 9+1",
        "0+4, 4+4, 8+2",
    )


def test_due_from_last_as_first_never_leaves_push() -> None:
    refuted(first_merges_0_7(Form.LAST), "merges 8+1, 9+1")
    refuted(first_leaves_push(first=Form.LAST), "stays on push for t = 0..10")
