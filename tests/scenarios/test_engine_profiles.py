"""The strategy of engine profiles (scenarios/strategies.py) draws valid
profiles only: a strategy that raises while drawing is reported by the laws
that use it as a broken law (profile_read_back in the deep profile did, when
the kinds were drawn once per kind)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.profile import KINDS, Profile
from scenarios import strategies


def test_the_kinds_taken_are_drawn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each draw of the kinds gives the next kind alone, so kinds drawn once
    per kind would take none of them (and the profile would not be made)."""
    after = itertools.cycle([frozenset({kind}) for kind in KINDS[1:] + KINDS[:1]])
    monkeypatch.setattr(strategies, "SOME_KINDS", st.builds(lambda: next(after)))
    seen: list[Profile] = []

    @settings(max_examples=5, database=None, derandomize=True)
    @given(strategies.engine_profiles())
    def draws(profile: Profile) -> None:
        seen.append(profile)

    draws()
    assert seen and all(len(profile.kinds) == 1 for profile in seen)


def test_a_strategy_made_once_is_one_of_its_values_types() -> None:
    """`among` and `between` are made once for their arguments, told apart
    by type: `among(0, 1)` draws integers, `among(False, True)` booleans,
    though 0 == False and 1 == True."""
    drawn: list[tuple[object, object]] = []

    @settings(max_examples=20, database=None, derandomize=True)
    @given(strategies.among(0, 1), strategies.among(False, True))
    def draws(number: object, truth: object) -> None:
        drawn.append((number, truth))

    draws()
    assert drawn and all(type(n) is int and type(t) is bool for n, t in drawn)
    assert strategies.between(1, 2) is strategies.between(1, 2)
