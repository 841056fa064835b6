from laws.registry import Step, declared, step_law
from laws.spec import batch_at_build, count, fitted, lines, plain, view_size
from model.events import Message


@step_law(off=declared("batches"))
def builds_run_batches(step: Step) -> None:
    """Under `batches: builds` an `end` after which its node is built runs the batch of a
    shrinking chat view: its merges join the most due pairs until the view is at most
    FLOOR or no pair is mergeable, and it is shrinking after exactly when it is over FLOOR.
    Every other event but a message merges nothing."""
    event, before, after = step.event, step.before, step.after
    merges = [plain(n) for n in after.chat.merges]
    if isinstance(event, Message) or step.refused:
        return
    if not batch_at_build(step):
        assert not merges, f"{event} merged {merges} though no batch was due"
        return
    if after.profile.free_leaves == "queued":
        return  # free leaves the queue built after the batch change what it weighed
    floor = after.constants.floor
    why = fitted(after, lines(before.chat.view), count(after), merges, floor)
    assert not why, f"the batch at {event}: {why}"
    assert after.chat.shrinking == (view_size(after, after.chat.view) > floor), (
        f"the chat view is {'' if after.chat.shrinking else 'not '}shrinking after {event}"
    )
