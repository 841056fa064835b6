from dataclasses import replace

from laws.registry import Step, step_law
from laws.spec import node_of, plain, queue, without_last_event
from model import machine
from model.events import Start
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return None if profile.self_calls else "calls driven"


@step_law(off=off)
def self_starts_every_candidate(step: Step) -> None:
    """Under `calls: self` every event ends with every candidate started, in queue order,
    and a `start` event is refused (`self_starts`)."""
    if isinstance(step.event, Start):
        assert step.refused == "self_starts", "an outside start was not refused under calls: self"
        return
    after = step.after
    assert not machine.candidates(after), "a candidate was left unstarted under calls: self"
    if step.refused:
        return
    # Undo the starts (a node let go after a failure waits to start again, first under
    # `retried: first`), then start the restated queue's first node until none is left.
    started = list(after.started)
    running = tuple(n for n in after.queue.running if n not in started)
    let_go = step.before.queue.retried + step.before.queue.held
    retried = tuple(n for n in let_go if n in started) + after.queue.retried
    undone = replace(after.queue, running=running, retried=retried)
    state = replace(without_last_event(after), queue=undone)
    expected = []
    while offered := queue(state, state.queue.waiting):
        expected.append(offered[0])
        running = state.queue.running + (node_of(offered[0]),)
        retried = tuple(n for n in state.queue.retried if plain(n) != offered[0])
        state = replace(state, queue=replace(state.queue, running=running, retried=retried))
    found = [plain(n) for n in started]
    assert found == expected, f"started {found}, not the queue's order {expected}"
