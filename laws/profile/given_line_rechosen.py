from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome


@step_law(off=declared("given_line"))
def given_line_rechosen(step: Step) -> None:
    """Under `given_line: reply` an `end`'s given line over LINE is one more reply to the
    line chooser, read on from the call's conversation (asking again under `replies_out:
    asks` while tries remain); under `given_line: cut` it is cut as the chooser cuts and
    installed. Where the final line of SPEC 5 would differ on a call's end, the declared
    one holds."""
    declared_outcome(step, "given_line", "final")
