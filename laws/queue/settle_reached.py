from laws.registry import Step, step_law
from laws.spec import built, lines
from model import machine
from model.events import Fail, Retry, Start, Wait
from model.profile import Profile


def off(profile: Profile) -> str | None:
    if not profile.need_first:
        return "need_first off"
    return None if profile.capped else "failure_cap none"


@step_law(off=off)
def settle_reached(step: Step) -> None:
    """A waiting turn settles after a bounded number of compactor outcomes: at
    most FAILURES per unbuilt view line, even when every call fails."""
    if not isinstance(step.event, Wait) or step.refused:
        return
    state = step.after
    unbuilt = sum(1 for line in lines(state.chat.view) if not built(state, line))
    bound = unbuilt * state.constants.failures
    outcomes = 0
    retried = False
    while not machine.settled(state) and outcomes <= bound:
        if not state.profile.self_calls:
            for node in machine.candidates(state):
                state = machine.step(state, Start(node))
        if not state.queue.running:
            # Two retries with no call between them would repeat for ever.
            assert not retried, "a waiting turn retried and still runs no call"
            state = machine.step(state, Retry())
            assert state.queue.running or machine.candidates(state), (
                "a waiting turn has no call to start"
            )
            retried = True
            continue
        retried = False
        for node in state.queue.running:
            state = machine.step(state, Fail(node))
            outcomes += 1
    assert machine.settled(state), f"not settled after {outcomes} failures, bound {bound}"
