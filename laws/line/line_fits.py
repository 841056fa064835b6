from laws.line.cases import Case, check, size
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    line = case.choice().line
    assert 1 <= size(line) <= case.node, f"{case}: chose {line!r}, not 1 to NODE bytes"


@check_law
def line_fits(profile: Profile) -> Held:
    """Every chosen line is 1 to NODE bytes."""
    return check(profile, holds)
