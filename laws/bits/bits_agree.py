from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from laws.bits import contracts
from laws.proofs import crosshair as runner
from laws.registry import Broken, Held, Inconclusive, Profile, check_law, derandomized, statement_of

CONTRACTS = Path(contracts.__file__)


def crosshair(seconds: float) -> str | None:
    """Run CrossHair on the contracts, `seconds` of CPU per condition; the
    counterexamples it prints, or None. OutOfBudget when it was stopped
    first (its process may use 60 + 10 `seconds` CPU seconds in all)."""
    verdict = runner.check(
        CONTRACTS, f"--per_condition_timeout={seconds}", cpu_seconds=int(60 + 10 * seconds)
    )
    return verdict.counterexamples


def agree(a: int, b: int, level: int) -> None:
    """Each of the four operations on one drawn case: compare and add on
    `a`, `b`, shift of `a` by `level`, parent of node (`level`, `b`)."""
    for function, args in (
        (contracts.compare_agrees, (a, b)),
        (contracts.add_agrees, (a, b)),
        (contracts.shift_agrees, (a, level)),
        (contracts.parent_agrees, (level, b)),
    ):
        assert function(*args), f"{function.__name__}{args} is false"


@check_law
def bits_agree(profile: Profile) -> Held:
    """Bit-list compare, add, shift and parent agree with integer arithmetic."""
    # One Hypothesis run whose every case checks all four operations: each
    # still gets `line_examples` cases from its own arguments' ranges, for a
    # quarter of the per-case overhead that four runs paid.
    small = st.integers(0, 2**20 - 1)
    checks = derandomized(profile.line_examples)
    try:
        checks(given(small, small, st.integers(0, 19))(agree))()
    except AssertionError as error:
        raise Broken("bits_agree", statement_of(bits_agree), str(error)) from None
    property_strength = f"property over {profile.line_examples} cases per operation"
    try:
        found = crosshair(profile.crosshair_seconds)
    except runner.OutOfBudget as stopped:
        raise Inconclusive(
            "bits_agree", statement_of(bits_agree), f"{property_strength} held; {stopped}"
        ) from None
    if found is not None:
        raise Broken("bits_agree", statement_of(bits_agree), f"CrossHair:\n{found}")
    return Held(
        f"{property_strength}; CrossHair found no counterexample in "
        f"{profile.crosshair_seconds:g} CPU s per condition"
    )
