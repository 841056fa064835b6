from laws.registry import Step, step_law
from model.events import Message, Retry


@step_law
def tick_retry_keeps_held(step: Step) -> None:
    """Under `retry: tick` a message leaves every held node held, and only a `retry`
    event lets them start again; otherwise a message that is taken releases them all,
    as a `retry` event does."""
    if step.refused or not isinstance(step.event, Message | Retry):
        return
    held, before = step.after.queue.held, step.before.queue.held
    if isinstance(step.event, Retry) or step.before.profile.retry == "message":
        assert held == (), f"{len(held)} nodes are still held after a {type(step.event).__name__}"
    else:
        assert set(held) == set(before), "a message released held nodes under retry: tick"
