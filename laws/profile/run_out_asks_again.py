from laws.registry import Step, declared, step_law
from laws.spec import chooser_replies, conversation, declared_outcome, name, plain, runs_out
from model.events import End


@step_law(off=declared("replies_out"))
def run_out_asks_again(step: Step) -> None:
    """Under `replies_out: asks` a call whose replies run out before TRIES with no line
    chosen goes on running, asking for another reply: nothing is built, nothing fails,
    and its next `end` reads on from the replies it got, TRIES counting them all, until
    the call ends or stops."""
    before, after, event = step.before, step.after, step.event
    declared_outcome(step, "replies_out", "ends")
    asked = {plain(n): list(read) for n, read in after.queue.asked}
    running = {plain(n) for n in after.queue.running}
    assert set(asked) <= running, f"calls not running ask on: {sorted(set(asked) - running)}"
    expected = {n: conversation(before, n) for n in asked}
    replies = (
        chooser_replies(event, before.constants.node, before.profile)
        if isinstance(event, End)
        else None
    )
    if replies is not None and not step.refused:
        node, c, p = plain(event.node), before.constants, before.profile
        read = conversation(before, node) + list(replies)
        if runs_out(read, c.node, c.tries, p):
            assert asked.get(node) == read, f"{name(node)} asks on having read {asked.get(node)}"
        expected[node] = read
    for node, read in asked.items():
        assert read == expected[node], f"{name(node)}'s call read {read}, not {expected[node]}"
