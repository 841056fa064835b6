from dataclasses import replace

from laws.registry import Step, step_law
from laws.spec import choose, conversation, cut, name, plain, source, text
from model.events import End


@step_law
def empty_reply_fails_call(step: Step) -> None:
    """Under `empty_reply: fails` a call whose replies reach an empty one before a line
    is chosen fails: it counts one more failure and its node is held, or built from its
    source cut to NODE bytes by the failure cap; otherwise an empty reply ends the tries
    and a line is chosen, so the call does not fail for it."""
    event = step.event
    if not isinstance(event, End) or event.replies is None or step.refused:
        return
    before, after = step.before, step.after
    c, node = before.constants, plain(event.node)
    failing = replace(before.profile, empty_reply="fails", replies_out="ends")
    replies = conversation(before, node) + list(event.replies)
    if choose(source(before, node), replies, c.node, c.tries, failing) is not None:
        return  # a line is chosen before any empty reply
    was = dict(before.queue.failures).get(event.node, 0)
    now = dict(after.queue.failures).get(event.node, 0)
    built = text(after, node)
    if before.profile.empty_reply == "ends":
        assert built is not None or before.profile.trim_lines, f"{name(node)} was not built"
        return
    if built is None:
        assert now == was + 1, f"an empty reply did not count a failure of {name(node)}"
        assert event.node in after.queue.held, f"{name(node)} is not held after an empty reply"
        return
    capped = before.profile.capped and was + 1 >= c.failures
    assert capped, f"{name(node)} was built although an empty reply failed its call"
    assert built == cut(source(before, node), c.node), f"{name(node)} is not its cut source"
