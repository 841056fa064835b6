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
    # Undo the starts, then start the restated queue's first node until none is left.
    started = list(after.started)
    running = tuple(n for n in after.queue.running if n not in started)
    state = replace(without_last_event(after), queue=replace(after.queue, running=running))
    expected = []
    while offered := queue(state, state.queue.waiting):
        expected.append(offered[0])
        running = state.queue.running + (node_of(offered[0]),)
        state = replace(state, queue=replace(state.queue, running=running))
    found = [plain(n) for n in started]
    assert found == expected, f"started {found}, not the queue's order {expected}"
