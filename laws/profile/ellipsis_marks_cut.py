from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome


@step_law(off=declared("ellipsis"))
def ellipsis_marks_cut(step: Step) -> None:
    """Under `ellipsis` a line the chooser cuts ends in the ellipsis, the cut leaving it
    room within the limit. Where a cut with no ellipsis would differ on a call's end,
    the node is built with the ellipsis."""
    declared_outcome(step, "ellipsis", "")
