from laws.registry import Step, step_law
from laws.spec import declared_outcome


@step_law
def ellipsis_marks_cut(step: Step) -> None:
    """Under `ellipsis` a line the chooser cuts ends in the ellipsis, the cut leaving it
    room within the limit; otherwise it ends where it was cut. Where the two differ on a
    call's end, the node is built with the line of the declared one."""
    other = "" if step.before.profile.ellipsis else "…"
    declared_outcome(step, "ellipsis", other)
