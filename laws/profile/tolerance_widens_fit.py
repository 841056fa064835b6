from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome


@step_law(off=declared("tolerance"))
def tolerance_widens_fit(step: Step) -> None:
    """Under `tolerance` a line fits at up to ⌊NODE × tolerance⌋ bytes: a reply that
    long is taken at once, a given line that long is installed, and the best reply is
    cut to that many. Where SPEC's NODE would end a call otherwise, the node is built
    (or the call fails, or asks on) as the declared tolerance says."""
    declared_outcome(step, "tolerance", 1.0)
