from laws.registry import Step, declared, step_law
from laws.spec import built, count, message_line, plain, size, source, text
from model.events import Message


@step_law(off=declared("free_leaves"))
def queued_free_leaf_waits(step: Step) -> None:
    """Under `free_leaves: queued` a message whose line fits NODE leaves its leaf unbuilt,
    queued like a leaf that needs a call, unless the engine starts it at once under
    `calls: self`; a start of a leaf whose line fits NODE builds it with its line, and no
    call for it is left running. Otherwise a message builds such a leaf at once."""
    if step.refused:
        return
    before, after = step.before, step.after
    node_bytes = after.constants.node
    started = [plain(n) for n in after.started]
    if isinstance(step.event, Message):
        leaf = (0, count(before))
        line = message_line(before, step.event)
        if size(line) <= node_bytes and before.profile.free_leaves == "queued":
            if leaf not in started:
                assert not built(after, leaf), f"free leaf {leaf[1]} was built at its message"
        elif size(line) <= node_bytes:
            assert text(after, leaf) == line, f"free leaf {leaf[1]} is not built as its line"
    running = {plain(n) for n in after.queue.running}
    for line_of in started:
        if line_of[0] == 0 and size(source(after, line_of)) <= node_bytes:
            assert text(after, line_of) == source(after, line_of), (
                f"free leaf {line_of[1]} started and was not built with its line"
            )
            assert line_of not in running, f"a call runs for free leaf {line_of[1]}"
