from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome


@step_law(off=declared("overlong"))
def kept_best_stays_whole(step: Step) -> None:
    """Under `overlong: kept` a call whose replies hold no fit is built with its best
    reply whole, however long, and a given line of any length of 1 byte or more is
    installed. Where a cut best reply or a refusal as `line_fits` would differ on a
    call's end, the kept one holds."""
    declared_outcome(step, "overlong", "cut")
