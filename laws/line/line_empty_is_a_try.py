from laws.line.cases import Case, check, size
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    best = None
    for k, reply in enumerate(case.replies[: case.tries]):
        text = case.read(reply)
        if not text:
            choice = case.choice()
            assert choice.replies == k + 1, f"{case}: empty reply {k + 1} did not end the tries"
            expected = case.last(best)
            assert choice.line == expected, f"{case}: after an empty reply chose {choice.line!r}"
            return
        if case.fits(reply) or (best is not None and size(text) >= size(best)):
            return
        best = text


@check_law
def line_empty_is_a_try(profile: Profile) -> Held:
    """An empty reply counts as a try and ends them."""
    return check(profile, holds)
