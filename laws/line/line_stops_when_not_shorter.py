from laws.line.cases import Case, check, size
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    best = None
    for k, reply in enumerate(case.replies[: case.tries]):
        text = case.read(reply)
        if not text or case.fits(reply):
            return
        if best is not None and size(text) >= size(best):
            choice = case.choice()
            assert choice.replies == k + 1, f"{case}: reply {k + 1} not shorter, tries went on"
            assert choice.line == case.last(best), f"{case}: the best reply was not kept"
            return
        best = text


@check_law
def line_stops_when_not_shorter(profile: Profile) -> Held:
    """A follow-up not shorter than the best ends the tries."""
    return check(profile, holds)
