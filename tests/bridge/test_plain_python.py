"""The tests that plant a bug by patching the engine's classes (`impl`,
in process), run where the C build is loaded: compiled code calls its own
methods, so a patched class attribute never reaches it, and each of these
tests skips itself there. All of them run here in one pytest process whose
planner is plain Python (OPTCHAT_PURE=1): one start of pytest for all,
not one for each file."""

from __future__ import annotations

import pytest

import impl
from tests.bridge.helpers import in_plain_python

PLANTED = {
    "tests/bridge/test_bridge.py": ("test_a_broken_engine_yields_a_shrunk_regression",),
    "tests/bridge/test_slips.py": (
        "test_two_planted_bugs_are_two_slips_each_shrunk_to_its_bug_alone",
        "test_fuzz_passes_over_a_known_slip_without_shrinking",
        "test_one_constant_off_by_one_at_two_sites_is_one_cause",
        "test_a_slip_that_mimics_a_bug_at_its_divergence_is_refuted_past_it",
    ),
    "tests/bridge/test_unexplained_causes.py": (
        "test_one_bug_shown_at_several_kinds_of_events_is_one_cause",
        "test_two_bugs_no_slip_explains_are_two_causes",
        "test_two_bugs_of_one_engine_each_seen_in_several_ways_are_two_causes",
        "test_a_slip_refuted_on_one_fail_explains_none",
        "test_a_slip_whose_model_parts_from_spec_before_the_divergence_is_refuted",
        "test_a_second_cover_after_the_scanning_budget_keeps_the_slips_found",
    ),
    "tests/bridge/test_option_slips.py": ("test_an_undeclared_option_is_one_cause_named_by_it",),
    "tests/bridge/test_one_cause_per_bug.py": (
        "test_three_bugs_each_seen_in_several_ways_are_three_named_causes",
        "test_a_fail_of_two_bugs_at_one_answer_joins_the_other_bugs_cause",
    ),
}
"""Each file's tests that patch the engine (each skipped under the C build)."""


@pytest.mark.skipif(not impl.COMPILED, reason="the planted-bug tests run in this process")
def test_the_planted_bugs_in_plain_python() -> None:
    in_plain_python(*(f"{path}::{test}" for path, tests in PLANTED.items() for test in tests))
