from laws.registry import Step, declared, step_law
from laws.spec import built, count, leaves_unbuilt, message_line, queue, room, size, source, text
from model.events import Message


@step_law(off=declared("free_leaves"))
def queued_free_leaf_waits(step: Step) -> None:
    """Under `free_leaves: queued` a leaf whose line fits NODE waits in the queue like a
    leaf that needs a call and is built with its line, with no call, as soon as the
    queue offers it: after every event no candidate is such a leaf, and one built at its
    own message had fewer than AHEAD unbuilt leaves before it (unless AHEAD does not
    apply: a turn waits with `ahead_in_wait` off, or under `ahead_limit: none`) and,
    under `calls: driven`, a place of JOBS free. Otherwise a message builds such a leaf
    at once."""
    if step.refused:
        return
    before, after = step.before, step.after
    c, p = after.constants, after.profile
    for line in queue(after, after.queue.waiting):
        assert line[0] > 0 or size(source(after, line)) > c.node, (
            f"free leaf {line[1]} is offered, not built"
        )
    if not isinstance(step.event, Message):
        return
    leaf = (0, count(before))
    line = message_line(before, step.event)
    if size(line) > c.node:
        return
    if p.free_leaves == "at_once" or built(after, leaf):
        assert text(after, leaf) == line, f"free leaf {leaf[1]} is not built as its line"
    if p.free_leaves == "at_once" or not built(after, leaf):
        return
    lifted = (after.queue.waiting and not p.ahead_in_wait) or p.ahead_limit == "none"
    ahead = sum(1 for n in leaves_unbuilt(after) if n[1] < leaf[1])
    assert lifted or ahead < c.ahead, (
        f"free leaf {leaf[1]} was built with {ahead} unbuilt before it"
    )
    assert p.self_calls or room(after, after.queue.waiting) > 0, (
        f"free leaf {leaf[1]} was built with every place of JOBS {c.jobs} taken"
    )
