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
