from laws.registry import Step, step_law
from laws.spec import declared_outcome


@step_law
def goes_on_past_not_shorter(step: Step) -> None:
    """Under `not_shorter: goes_on` a follow-up not shorter than the best does not end
    the tries: the call reads on, to a fit, an empty reply or TRIES, and keeps the
    shortest reply; otherwise such a follow-up ends them. Where the two differ on a
    call's replies, the node is built with the line of the declared one."""
    other = "stops" if step.before.profile.not_shorter == "goes_on" else "goes_on"
    declared_outcome(step, "not_shorter", other)
