from laws.line.cases import Case, check, size
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    best = None
    for k, reply in enumerate(case.replies[: case.tries]):
        text = case.read(reply)
        if case.fits(reply):
            choice = case.choice()
            assert (choice.line, choice.replies) == (text, k + 1), f"{case}: first fit not taken"
            return
        if not text or (best is not None and size(text) >= best):
            return
        best = size(text)


@check_law
def line_takes_first_fit(profile: Profile) -> Held:
    """The first reply that fits is the line."""
    return check(profile, holds)
