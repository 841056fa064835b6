from laws.registry import Step, step_law
from laws.spec import declared_outcome
from model.profile import TRIM_SETS


@step_law
def trim_set_names_whitespace(step: Step) -> None:
    """The white space stripped from a reply, and under `trim_lines` from a call's line,
    is exactly the profile's `trim_set`: Unicode's White_Space (SPEC's), JavaScript's
    `trim`, or ASCII's. Where two sets differ on a call's end, the node is built with the
    line of the declared one."""
    declared = step.before.profile.trim_set
    for other in TRIM_SETS:
        if other != declared:
            declared_outcome(step, "trim_set", other)
