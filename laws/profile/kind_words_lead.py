from laws.registry import Step, step_law
from laws.spec import built, count, message_line, source, text
from model.events import Message


@step_law
def kind_words_lead(step: Step) -> None:
    """A message's line is its kind's word, `: `, then its text: the kind itself, or the
    word `kind_words` gives it."""
    if not isinstance(step.event, Message) or step.refused:
        return
    leaf = (0, count(step.before))
    line = message_line(step.before, step.event)
    assert source(step.after, leaf) == line, f"message {leaf[1]} is logged as another line"
    queued = step.before.profile.free_leaves == "queued" and not built(step.after, leaf)
    if len(line.encode("utf-8")) <= step.after.constants.node and not queued:
        assert text(step.after, leaf) == line, f"free leaf {leaf[1]} is not its line"
