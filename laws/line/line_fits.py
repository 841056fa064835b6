from laws.line.cases import Case, check, size
from laws.registry import Held, Profile, check_law


def holds(case: Case) -> None:
    line = case.choice().line
    assert line is not None, f"{case}: no line chosen"
    kept = case.limits.overlong == "kept" and line in map(case.read, case.replies[: case.tries])
    most = size(line) if kept else case.limit
    assert 1 <= size(line) <= most, f"{case}: chose {line!r}, not 1 to LINE bytes"


@check_law
def line_fits(profile: Profile) -> Held:
    """Every chosen line is 1 to LINE bytes: NODE, or ⌊NODE × tolerance⌋ under
    `tolerance`; only a best reply `overlong: kept` keeps whole may be longer."""
    return check(profile, holds)
