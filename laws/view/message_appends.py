from laws.registry import Step, step_law
from laws.spec import count, lines
from model.events import Message


@step_law
def message_appends(step: Step) -> None:
    """Between batches a message appends only its line: the old view is a prefix of the new."""
    if isinstance(step.event, Message) and not step.refused and not step.after.chat.merges:
        expected = lines(step.before.chat.view) + [(0, count(step.before))]
        assert lines(step.after.chat.view) == expected, "a message without merges changed old lines"
