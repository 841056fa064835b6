from laws.line.cases import Case, check
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    assert case.choice().replies <= case.tries, f"{case}: more than TRIES replies read"


@check_law
def line_calls_at_most_tries(profile: Profile) -> Held:
    """A line takes at most TRIES replies."""
    return check(profile, holds)
