from laws.registry import Step, step_law
from laws.spec import leaves_unbuilt, plain
from model import machine
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return "ahead_in_wait on" if profile.ahead_in_wait else None


@step_law(off=off)
def wait_ignores_ahead(step: Step) -> None:
    """With `ahead_in_wait` off a waiting turn's candidates are every unbuilt line of the
    view, oldest first, cut to the room JOBS leaves."""
    state = step.after
    if not (state.queue.waiting and state.profile.need_first):
        return
    busy = {plain(n) for n in (*state.queue.running, *state.queue.held)}
    room = state.constants.jobs - len(state.queue.running)
    expected = [leaf for leaf in leaves_unbuilt(state) if leaf not in busy][: max(room, 0)]
    found = [plain(n) for n in machine.candidates(state)]
    assert found == expected, f"a waiting turn offers {found}, not {expected}"
