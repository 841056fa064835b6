from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Broken, Held, Profile, check_law, derandomized, statement_of
from model.profile import Profile as EngineProfile
from model.profile import deviations, from_options, options
from scenarios.strategies import engine_profiles

OPTIONS = (
    "trim_lines",
    "kind_words",
    "need_first",
    "failure_cap",
    "calls",
    "ahead_in_wait",
    "empty_chat",
    "kinds",
    "retry",
    "held_takes_job",
    "merge_order",
    "resume",
    "empty_reply",
    "not_shorter",
    "retried",
    "zoom_one",
    "zoom_halves",
    "zoom_unbuilt",
    "tolerance",
    "cut",
    "ellipsis",
    "overlong",
    "replies_out",
    "given_line",
    "trim_set",
    "free_leaves",
    "flat_lines",
    "ahead_limit",
    "flat_sizes",
    "batches",
    "row_sizes",
)
"""SPEC 10's options, in its order."""


def reads_back(profile: EngineProfile, declared: frozenset[str]) -> None:
    written = options(profile)
    assert set(written) == set(OPTIONS), f"a profile is written with the options {sorted(written)}"
    assert from_options(written) == profile, f"{written} reads back as {from_options(written)}"
    partial = {name: written[name] for name in OPTIONS if name in declared}
    expected = replace(EngineProfile(), **{name: getattr(profile, name) for name in declared})
    assert from_options(partial) == expected, f"{partial} reads back as {from_options(partial)}"
    differ = [name for name in OPTIONS if getattr(profile, name) != getattr(EngineProfile(), name)]
    named = [deviation.split()[0] for deviation in deviations(profile)]
    assert named == differ, f"{profile} is said to deviate in {named}, not {differ}"


@check_law
def profile_read_back(profile: Profile) -> Held:
    """A profile written with every option reads back as itself, a declaration of
    some options keeps SPEC's rule for the others, an unknown option, a kind word
    that is empty or holds ': ' or a line break, a tolerance outside 1 to 4 or not
    in hundredths, or an ellipsis of more than 3 bytes or two lines is refused, and
    the deviations named are the options that differ from SPEC's."""
    cases = given(engine_profiles(), st.frozensets(st.sampled_from(OPTIONS)))(reads_back)
    try:
        derandomized(profile.always_examples)(cases)()
        try:
            from_options({"no_such_option": True})
        except ValueError as error:
            assert "no_such_option" in str(error), f"the refusal does not name it: {error}"
        else:
            raise AssertionError("an unknown option is taken")
        for word in ("", "a: b", "a\nb", "a\rb"):
            try:
                from_options({"kind_words": {"user": word}})
            except ValueError:
                continue
            raise AssertionError(f"the kind word {word!r} is taken (SPEC 10: one line, no ': ')")
        for bad in ({"tolerance": 0.99}, {"tolerance": 4.01}, {"tolerance": 1.255}):
            try:
                from_options(bad)
            except ValueError:
                continue
            raise AssertionError(f"{bad} is taken (SPEC 10: from 1 to 4, in hundredths)")
        for ellipsis in ("....", "…a", "a\nb", "\ud800"):
            try:
                from_options({"ellipsis": ellipsis})
            except ValueError:
                continue
            raise AssertionError(f"the ellipsis {ellipsis!r} is taken (SPEC 10: 3 bytes, a line)")
    except AssertionError as error:
        raise Broken("profile_read_back", statement_of(profile_read_back), str(error)) from None
    return Held(f"property over {profile.always_examples} profiles, each with options left out")
