"""Reply lists for the line laws (SPEC 5): empty, whitespace, fitting and
over-long replies, in any mix, with multibyte characters. The line laws
state SPEC's own chooser; the profile's chooser options have laws of their
own, on histories (SPEC 8, 10)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from laws.registry import Held, Profile, settings_for
from model.line import Choice, choose_line
from model.profile import Profile as EngineProfile
from scenarios.format import sized_text


@dataclass(frozen=True)
class Case:
    source: str
    replies: list[str]
    node: int
    tries: int

    def choice(self) -> Choice:
        return choose_line(self.source, self.replies, self.node, self.tries, EngineProfile())


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def cut(text: str, node: int) -> str:
    """`text` cut to `node` bytes at a character boundary, restated for the laws."""
    return text.encode("utf-8")[:node].decode("utf-8", errors="ignore")


def fits(reply: str, node: int) -> bool:
    return 1 <= size(reply.strip()) <= node


@cache
def texts_of(node: int) -> tuple[st.SearchStrategy[str], st.SearchStrategy[list[str]]]:
    """A call's source and replies at one NODE, made once per NODE: making a
    strategy costs Hypothesis more than drawing from it."""
    reply = st.one_of(
        st.sampled_from(["", " ", "\n"]),
        st.builds(sized_text, st.integers(1, 3 * node), st.integers(0, 40)),
    )
    source = st.builds(sized_text, st.integers(1, 4 * node), st.integers(0, 40))
    return source, st.lists(reply, max_size=7)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    node = draw(st.integers(4, 64))
    source, replies = texts_of(node)
    return Case(
        source=draw(source), replies=draw(replies), node=node, tries=draw(st.integers(1, 5))
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
