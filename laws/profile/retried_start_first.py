from dataclasses import replace

from laws.registry import Step, declared, step_law
from laws.spec import built, plain, room, work
from model import machine
from model.events import Message, Retry


@step_law(off=declared("retried"))
def retried_start_first(step: Step) -> None:
    """Under `retried: first` the nodes let go after a failure (by a message, or a
    `retry` event) come before every other candidate, in the order they were let go
    (those let go together in the order they failed), until they start."""
    before, after = step.before, step.after
    let_go = not step.refused and (
        isinstance(step.event, Retry)
        or (isinstance(step.event, Message) and before.profile.retry == "message")
    )
    waiting = [plain(n) for n in before.queue.retried]
    if let_go:
        waiting += [plain(n) for n in before.queue.held]
    started = {plain(n) for n in after.started}
    expected = [n for n in waiting if n not in started and not built(after, n)]
    found = [plain(n) for n in after.queue.retried]
    assert found == expected, f"the nodes let go are {found}, not {expected}"
    if not found:
        return
    in_place = replace(after, profile=replace(after.profile, retried="in_place"))
    for turn, offered in (
        (after.queue.waiting, machine.candidates(after)),
        (True, machine.candidates_waiting(after)),
    ):
        base = work(in_place, turn)
        first = [n for n in found if n in base] + [n for n in base if n not in found]
        shown = [plain(n) for n in offered]
        assert shown == first[: room(after, turn)], f"the queue offers {shown}, not {first}"
