from dataclasses import replace

from laws.registry import Step, step_law
from laws.spec import built, node_of, plain, queue, without_last_event
from model import machine
from model.errors import Refused
from model.events import Start
from model.machine import State
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return None if profile.self_calls else "calls driven"


def undone(step: Step) -> State:
    """The state after the event, before the engine started anything: the starts
    undone (a node let go after a failure waits to start again, first under `retried:
    first`)."""
    after = step.after
    started = list(after.started)
    running = tuple(n for n in after.queue.running if n not in started)
    let_go = step.before.queue.retried + step.before.queue.held
    retried = tuple(n for n in let_go if n in started) + after.queue.retried
    return replace(
        without_last_event(after), queue=replace(after.queue, running=running, retried=retried)
    )


def expected_starts(state: State) -> list[tuple[int, int]]:
    """The restated queue's first node started until none is left."""
    expected = []
    while offered := queue(state, state.queue.waiting):
        expected.append(offered[0])
        running = state.queue.running + (node_of(offered[0]),)
        retried = tuple(n for n in state.queue.retried if plain(n) != offered[0])
        state = replace(state, queue=replace(state.queue, running=running, retried=retried))
    return expected


def expected_driven(step: Step) -> list[tuple[int, int]]:
    """The same where a start built a free leaf (`free_leaves: queued`), which cannot be
    undone: the event taken as an engine whose calls are driven takes it, then the
    restated queue's first node started from the outside until none is left (a start
    may also settle the view, and so end a wait under `resume: self`)."""
    driven = replace(step.before.profile, calls="driven")
    state = machine.step(replace(step.before, profile=driven), step.event)
    expected = []
    while offered := queue(state, state.queue.waiting):
        expected.append(offered[0])
        try:
            state = machine.step(state, Start(node_of(offered[0])))
        except Refused as refused:
            raise AssertionError(f"the queue's first node {offered[0]} is refused") from refused
    return expected


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
    found = [plain(n) for n in after.started]
    if any(built(after, n) for n in found):
        expected = expected_driven(step)
    else:
        expected = expected_starts(undone(step))
    assert found == expected, f"started {found}, not the queue's order {expected}"
