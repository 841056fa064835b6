from laws.registry import Step, step_law
from laws.spec import built, lines
from model.events import Settle, Timeout


@step_law
def self_resume_ends_settled_wait(step: Step) -> None:
    """Under `resume: self` no turn still waits on a settled view after an event, so a
    `settle` event is never taken; otherwise only a `settle` or a `timeout` that is taken
    ends a wait."""
    after = step.after
    settled = all(built(after, line) for line in lines(after.chat.view))
    if after.profile.resume == "self":
        assert not (after.queue.waiting and settled), "a turn still waits on a settled view"
        assert not isinstance(step.event, Settle) or step.refused, "a settle event was taken"
        return
    if step.before.queue.waiting and not after.queue.waiting:
        assert isinstance(step.event, Settle | Timeout) and not step.refused, (
            f"a {type(step.event).__name__} event ended the wait"
        )
