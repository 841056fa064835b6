from collections.abc import Callable
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


def holds(function: Callable[[int, int], bool]) -> Callable[[int, int], None]:
    """A property asserting `function` on its two arguments."""

    def check(a: int, b: int) -> None:
        assert function(a, b), f"{function.__name__}({a}, {b}) is false"

    return check


@check_law
def bits_agree(profile: Profile) -> Held:
    """Bit-list compare, add, shift and parent agree with integer arithmetic."""
    small = st.integers(0, 2**20 - 1)
    level = st.integers(0, 19)
    cases = {
        contracts.compare_agrees: (small, small),
        contracts.add_agrees: (small, small),
        contracts.shift_agrees: (small, level),
        contracts.parent_agrees: (level, small),
    }
    checks = derandomized(profile.line_examples)
    for function, strategies in cases.items():
        try:
            checks(given(*strategies)(holds(function)))()
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
