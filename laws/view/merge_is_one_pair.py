from laws.registry import Step, step_law
from laws.spec import batch_at_build, built, lines, name, plain, replay_merges
from model.events import Message


@step_law
def merge_is_one_pair(step: Step) -> None:
    """A merge replaces two sibling lines with their built parent, or changes nothing."""
    batched = isinstance(step.event, Message) or batch_at_build(step)
    if not batched or step.refused:
        assert step.after.chat.view == step.before.chat.view, "a view changed without a message"
        return
    views = replay_merges(step.before, step.event, step.after.chat.merges)
    for parent in step.after.chat.merges:
        assert built(step.after, plain(parent)), f"merged into {name(plain(parent))}, not built"
    assert views[-1] == lines(step.after.chat.view), "the view is not its batch's merges applied"
