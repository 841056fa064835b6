from laws.registry import Step, step_law
from laws.spec import batch_due, built_after_batch
from model.events import Message


@step_law
def message_merges_nothing(step: Step) -> None:
    """Between batches (not shrinking, not over CEILING) a message merges nothing."""
    if built_after_batch(step):
        return
    if (
        isinstance(step.event, Message)
        and not step.refused
        and not batch_due(step.before, step.event)
    ):
        assert not step.after.chat.merges, "a message under CEILING, not shrinking, merged"
        assert len(step.after.chat.view) == len(step.before.chat.view) + 1, (
            "no batch, yet lines went"
        )
