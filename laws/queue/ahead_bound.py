from laws.registry import Step, step_law
from laws.spec import built, plain
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return "ahead_limit none" if profile.ahead_limit == "none" else None


@step_law(off=off)
def ahead_bound(step: Step) -> None:
    """A leaf starts only with fewer than AHEAD unbuilt leaves before it (while a turn
    waits only under `ahead_in_wait`)."""
    state = step.after
    if state.queue.waiting and not state.profile.ahead_in_wait:
        return
    ahead = state.constants.ahead
    for node in state.started:
        if node.level == 0:
            i = plain(node)[1]
            unbuilt = sum(1 for j in range(i) if not built(state, (0, j)))
            assert unbuilt < ahead, (
                f"leaf {i} started with {unbuilt} unbuilt before it, AHEAD {ahead}"
            )
