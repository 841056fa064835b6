"""Reply lists for the line laws (SPEC 5): empty, white-space, fitting and
over-long replies, in any mix, with multibyte characters and the characters
where the named sets of white space differ. The line laws state SPEC's own
chooser under the profile's limits of a line (SPEC 10: `tolerance`, `cut`,
`ellipsis`, `overlong`, `trim_set`), drawn with each case; the options that
change which replies are read have laws of their own, on histories (SPEC 8,
10)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Held, Profile, settings_for
from laws.spec import chooser_cut, line_limit, strip
from model.line import Choice, choose_line
from model.profile import Profile as EngineProfile
from model.profile import deviations
from scenarios.format import sized_text
from scenarios.strategies import TOLERANCES

SPACES = ["", " ", "\n", "\x0b", "\x1f", "\x85", "\xa0", "\u3000", "\ufeff"]
"""Replies of one character, and ends of replies: white space in every named
set, in some, or in none (SPEC 3.6)."""


@dataclass(frozen=True)
class Case:
    source: str
    replies: list[str]
    node: int
    tries: int
    limits: EngineProfile

    def __repr__(self) -> str:
        limits = "; ".join(deviations(self.limits)) or "SPEC"
        return (
            f"Case(source={self.source!r}, replies={self.replies!r}, node={self.node}, "
            f"tries={self.tries}, limits={limits})"
        )

    def choice(self) -> Choice:
        return choose_line(self.source, self.replies, self.node, self.tries, self.limits)

    @property
    def limit(self) -> int:
        """LINE, restated (SPEC 5)."""
        return line_limit(self.node, self.limits)

    def read(self, reply: str) -> str:
        """A reply as the chooser reads it: stripped (SPEC 3.6, 5)."""
        return strip(reply, self.limits)

    def fits(self, reply: str) -> bool:
        return 1 <= size(self.read(reply)) <= self.limit

    def last(self, best: str | None) -> str:
        """The line at the end of the tries: the best whole under `overlong:
        kept`, else the best (or the source) cut (SPEC 5, 10)."""
        if best is not None and self.limits.overlong == "kept":
            return best
        return chooser_cut(self.source if best is None else best, self.limit, self.limits)


def size(text: str) -> int:
    return len(text.encode("utf-8"))


@cache
def texts_of(node: int) -> tuple[st.SearchStrategy[str], st.SearchStrategy[list[str]]]:
    """A call's source and replies at one NODE, made once per NODE: making a
    strategy costs Hypothesis more than drawing from it."""
    sized = st.builds(sized_text, st.integers(1, 3 * node), st.integers(0, 40))
    reply = st.one_of(
        st.sampled_from(SPACES),
        sized,
        st.builds(lambda text, end: text + end, sized, st.sampled_from(SPACES)),
    )
    source = st.builds(sized_text, st.integers(1, 4 * node), st.integers(0, 40))
    return source, st.lists(reply, max_size=7)


LIMITS = st.one_of(
    st.just(EngineProfile()),
    st.builds(
        EngineProfile,
        tolerance=TOLERANCES,
        cut=st.sampled_from(["character", "word"]),
        ellipsis=st.sampled_from(["", "…", "..."]),
        overlong=st.sampled_from(["cut", "kept"]),
        trim_set=st.sampled_from(["unicode", "javascript", "ascii"]),
    ),
)
"""SPEC's own limits half the time, any others otherwise."""


@st.composite
def cases(draw: st.DrawFn) -> Case:
    node = draw(st.integers(4, 64))
    source, replies = texts_of(node)
    return Case(
        source=draw(source),
        replies=draw(replies),
        node=node,
        tries=draw(st.integers(1, 5)),
        limits=draw(LIMITS),
    )


@cache
def drawn(profile: Profile) -> tuple[Case, ...]:
    """The profile's reply lists, drawn once per process: every line law draws
    the same cases from the same settings, so the draws are shared, as the
    step laws share their histories."""
    found: list[Case] = []

    @settings_for(profile, profile.line_examples)
    @given(cases())
    def draw(case: Case) -> None:
        found.append(case)

    draw()
    return tuple(found)


def check(profile: Profile, law: Callable[[Case], None]) -> Held:
    """Run `law` on the profile's number of reply lists. On a failure,
    Hypothesis searches again for the law alone, to shrink the case it
    breaks on; the shared case is the counterexample if that search does not
    find it again."""
    for case in drawn(profile):
        try:
            law(case)
        except Exception:
            break
    else:
        return Held(f"property over {profile.line_examples} reply lists")

    @settings_for(profile, profile.line_examples)
    @given(cases())
    def run(case: Case) -> None:
        law(case)

    run()
    law(case)
    raise AssertionError(f"{case}: broke the law once, then held when checked again")
