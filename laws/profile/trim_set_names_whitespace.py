from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome
from model.profile import TRIM_SETS


@step_law(off=declared("trim_set"))
def trim_set_names_whitespace(step: Step) -> None:
    """Under `trim_set: javascript` or `ascii` the white space stripped from a reply, and
    under `trim_lines` from a call's line, is exactly that set. Where another set would
    differ on a call's end, the node is built with the line of the declared one."""
    declared_set = step.before.profile.trim_set
    for other in TRIM_SETS:
        if other != declared_set:
            declared_outcome(step, "trim_set", other)
