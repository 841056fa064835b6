from laws.registry import Step, step_law
from laws.spec import declared_outcome


@step_law
def kept_best_stays_whole(step: Step) -> None:
    """Under `overlong: kept` a call whose replies hold no fit is built with its best
    reply whole, however long, and a given line of any length of 1 byte or more is
    installed; otherwise the best reply is cut and a line over the limit is refused as
    `line_fits`. Where the two differ on a call's end, the declared one holds."""
    other = "cut" if step.before.profile.overlong == "kept" else "kept"
    declared_outcome(step, "overlong", other)
