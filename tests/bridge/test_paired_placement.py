"""A FAIL two groups' slips explain together, and no slip alone (two bugs
at one answer: bridge/checking/slips.py `together`), is counted in one of
the two groups: which one must not depend on the order the FAILs were
judged in, which timing sets (`settled`)."""

from __future__ import annotations

import pytest

from bridge.checking import slips
from bridge.formats.profile import SPEC
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL

FIRST = "slip:machine.free_offered.not-if.0"
SECOND = "slip:machine._build_free.eq-ne.0"


def failure(name: str, *explained: tuple[slips.Slip, ...]) -> slips.Failure:
    """A FAIL judged already: explained by each of `explained` (one slip,
    or two together), by nothing else."""
    made = slips.Failure(
        name, Scenario(constants_dict(SMALL), []), SPEC, (), 0, {}, "views@message"
    )
    for tried in explained:
        made.judged[tried] = True
    return made


@pytest.mark.parametrize("own", [(3, 2), (2, 3), (2, 2)])
def test_a_fail_of_two_slips_together_is_counted_where_it_came_in_no_order(
    own: tuple[int, int],
) -> None:
    """Whichever group a paired FAIL joined as it came (the one of the most
    FAILs then), it ends in the one of the most FAILs of their own, by slip
    rank between equals; and stays there when settled again."""
    one, two = slips.named(FIRST), slips.named(SECOND)
    paired = failure("paired", (one, two), (two, one))
    first = [failure(f"a{k}", (one,)) for k in range(own[0])]
    second = [failure(f"b{k}", (two,)) for k in range(own[1])]
    rank = min((one, two), key=lambda s: s.rank)
    expected = one if own[0] > own[1] else two if own[1] > own[0] else rank
    for joined in (0, 1):
        groups = [slips.Explained([one], list(first)), slips.Explained([two], list(second))]
        groups[joined].failures.append(paired)
        paired.paired = True
        for _ in range(2):
            slips.settled(groups)
            (holder,) = [g for g in groups if paired in g.failures]
            assert holder.slip == expected, (own, joined)
            assert [len(g.failures) for g in groups] == [
                own[0] + (expected == one),
                own[1] + (expected == two),
            ]


def test_a_paired_fail_no_pair_explains_any_more_stays_where_it_was() -> None:
    """A FAIL put in a group by two slips, whose groups' slips narrowed
    since (the pair judged no longer), is left in the group it joined."""
    one, two = slips.named(FIRST), slips.named(SECOND)
    paired = failure("paired")  # judged by no pair now
    paired.judged.update({(one, two): False, (two, one): False})
    groups = [
        slips.Explained([one], [failure("a", (one,)), failure("a2", (one,))]),
        slips.Explained([two], [failure("b", (two,)), paired]),
    ]
    paired.paired = True
    slips.settled(groups)
    assert paired in groups[1].failures and paired not in groups[0].failures
