from laws.registry import Step, step_law
from laws.spec import declared_outcome


@step_law
def tolerance_widens_fit(step: Step) -> None:
    """Under `tolerance` a line fits at up to ⌊NODE × tolerance⌋ bytes: a reply that
    long is taken at once, a given line that long is installed, and the best reply is
    cut to that many; otherwise at NODE bytes. Where the two differ on a call's end, the
    node is built (or the call fails, or asks on) as the declared one says."""
    other = 1.25 if step.before.profile.tolerance == 1 else 1.0
    declared_outcome(step, "tolerance", other)
