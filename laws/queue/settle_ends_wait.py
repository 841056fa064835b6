from laws.registry import Step, step_law
from model import machine
from model.errors import Refused
from model.events import Settle, Timeout, Wait


@step_law
def settle_ends_wait(step: Step) -> None:
    """A settle or a timeout that is taken ends the wait: no turn waits after it,
    and the next turn may wait."""
    if not isinstance(step.event, Settle | Timeout) or step.refused:
        return
    assert not step.after.queue.waiting, "a turn still waits after it settled or timed out"
    try:
        machine.step(step.after, Wait())
    except Refused as refused:
        raise AssertionError(f"the next turn may not wait: {refused}") from None
