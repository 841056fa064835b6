from laws.registry import Step, step_law
from laws.spec import built_after_batch, count, fitted, lines, plain, view_size


@step_law
def cview_follows_chat(step: Step) -> None:
    """When the chat view merges, the compaction view is the chat view merged further,
    most due first, until it is at most CFLOOR or no pair is mergeable."""
    if not step.after.chat.merges or built_after_batch(step):
        return
    after, cfloor = step.after, step.after.constants.cfloor
    merges = [plain(n) for n in after.compaction.merges]
    flaw = fitted(after, lines(after.chat.view), count(after), merges, cfloor)
    assert not flaw, f"after a chat merge the compaction view's batch {flaw}"
    view = lines(after.chat.view)
    for parent in merges:
        halves = [(parent[0] - 1, 2 * parent[1]), (parent[0] - 1, 2 * parent[1] + 1)]
        at = view.index(halves[0])
        view = view[:at] + [parent] + view[at + 2 :]
    assert view == lines(after.compaction.view), "the compaction view is not the chat view merged"
    shrinking = view_size(after, after.compaction.view) > cfloor
    assert after.compaction.shrinking == shrinking, "the compaction view's shrinking flag is wrong"
