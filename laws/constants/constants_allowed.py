from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Broken, Held, Profile, check_law, derandomized, statement_of
from model.constants import Constants

SPEC_VALUES = {
    **{"node": 512, "ceiling": 128_000, "floor": 64_000, "cceiling": 32_000, "cfloor": 16_000},
    **{"jobs": 8, "ahead": 8, "tries": 5, "failures": 3},
}
"""SPEC 7's values of the constants the rule bounds."""

AT_LEAST_ONE = ("jobs", "ahead", "tries", "failures")


def allowed(values: dict[str, int]) -> bool:
    """SPEC 7's rule, restated: NODE at least 4, FLOOR at most CEILING and CFLOOR
    at most CCEILING (sizes are not negative), the counts at least 1."""
    return (
        values["node"] >= 4
        and 0 <= values["floor"] <= values["ceiling"]
        and 0 <= values["cfloor"] <= values["cceiling"]
        and all(values[name] >= 1 for name in AT_LEAST_ONE)
    )


def near_the_bounds() -> list[dict[str, int]]:
    """Each bound met, missed by one and passed by one, the other constants at
    SPEC's values."""
    cases = [{**SPEC_VALUES, "node": node} for node in range(2, 6)]
    for floor, ceiling in product(range(-1, 3), repeat=2):
        cases.append({**SPEC_VALUES, "floor": floor, "ceiling": ceiling})
    for cfloor, cceiling in product(range(-1, 3), repeat=2):
        cases.append({**SPEC_VALUES, "cfloor": cfloor, "cceiling": cceiling})
    for name, value in product(AT_LEAST_ONE, range(-1, 3)):
        cases.append({**SPEC_VALUES, name: value})
    return cases


def taken_exactly_when_allowed(values: dict[str, int]) -> None:
    try:
        Constants(**values)  # type: ignore[arg-type]
    except ValueError:
        assert not allowed(values), f"SPEC 7 allows {values}, and they are refused"
    else:
        assert allowed(values), f"SPEC 7 does not allow {values}, and they are taken"


@check_law
def constants_allowed(profile: Profile) -> Held:
    """Constants are taken exactly when section 7 allows them: NODE at least 4,
    FLOOR at most CEILING and CFLOOR at most CCEILING (sizes not negative), JOBS,
    AHEAD, TRIES and FAILURES at least 1."""
    cases = near_the_bounds()
    anywhere = st.fixed_dictionaries({name: st.integers(-3, 10**6) for name in SPEC_VALUES})
    try:
        for values in cases:
            taken_exactly_when_allowed(values)
        derandomized(profile.always_examples)(given(anywhere)(taken_exactly_when_allowed))()
    except AssertionError as error:
        raise Broken("constants_allowed", statement_of(constants_allowed), str(error)) from None
    return Held(
        f"every bound met, missed and passed by one ({len(cases)} cases); property over "
        f"{profile.always_examples} sets of constants"
    )
