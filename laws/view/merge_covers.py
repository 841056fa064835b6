from laws.registry import Step, step_law
from laws.spec import count, replay_merges, span
from model.events import Message


@step_law
def merge_covers(step: Step) -> None:
    """A merge keeps the tiling: every view a batch passes through covers 0..T-1 once."""
    if not isinstance(step.event, Message) or step.refused:
        return
    for view in replay_merges(step.before, step.event, step.after.chat.merges):
        spans = [span(line) for line in view]
        starts = [0] + [end for _, end in spans[:-1]]
        assert [first for first, _ in spans] == starts, "a merge left a gap or an overlap"
        assert spans[-1][1] == count(step.after), "a merge lost the end of the chat"
