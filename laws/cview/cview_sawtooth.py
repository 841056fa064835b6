from laws.registry import Step, step_law
from laws.spec import (
    batch_at_build,
    built_after_batch,
    count,
    fitted,
    line_size,
    lines,
    plain,
    view_size,
)
from model.events import Message


@step_law
def cview_sawtooth(step: Step) -> None:
    """Otherwise a message appends its leaf to the compaction view, a batch runs exactly
    when it is then over CCEILING or still shrinking, and it ends at or under CFLOOR
    unless no pair is mergeable."""
    before, after, c = step.before, step.after, step.after.constants
    if batch_at_build(step) and after.chat.merges:
        return  # the chat view merged: law cview_follows_chat
    if not isinstance(step.event, Message) or step.refused:
        assert lines(after.compaction.view) == lines(before.compaction.view), (
            "the compaction view changed without a message"
        )
        return
    if after.chat.merges or built_after_batch(step):
        return
    grown = lines(before.compaction.view) + [(0, count(before))]
    size = sum(line_size(after, line) for line in grown)
    merges = [plain(n) for n in after.compaction.merges]
    if not (before.compaction.shrinking or size > c.cceiling):
        assert not merges and lines(after.compaction.view) == grown, (
            f"the compaction view at {size} bytes, not over CCEILING {c.cceiling} nor "
            "shrinking, did more than append the leaf"
        )
        return
    flaw = fitted(after, grown, count(after), merges, c.cfloor)
    assert not flaw, f"the compaction view's own batch {flaw}"
    shrinking = view_size(after, after.compaction.view) > c.cfloor
    assert after.compaction.shrinking == shrinking, "the compaction view's shrinking flag is wrong"
