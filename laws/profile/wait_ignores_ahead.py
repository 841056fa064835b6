from laws.registry import Step, step_law
from laws.spec import leaves_unbuilt, merge_order, plain
from model import machine
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return "ahead_in_wait on" if profile.ahead_in_wait else None


@step_law(off=off)
def wait_ignores_ahead(step: Step) -> None:
    """With `ahead_in_wait` off a waiting turn's candidates are every unbuilt line of the
    view, oldest first (then, without `need_first`, the ready merges; under `retried:
    first` the nodes let go after a failure before both), cut to the room JOBS leaves."""
    state = step.after
    queue = state.queue
    first = state.profile.need_first
    # The turn that waits, or one that would begin to wait now (stopping merges under need_first).
    running = [n for n in queue.running if queue.waiting or not first or n.level == 0]
    busy = {plain(n) for n in (*running, *queue.held)}
    held = len(queue.held) if state.profile.held_takes_job else 0
    room = state.constants.jobs - len(running) - held
    work = leaves_unbuilt(state) + ([] if first else merge_order(state))
    if state.profile.retried == "first":
        again = [plain(n) for n in queue.retried]
        work = [n for n in again if n in work] + [n for n in work if n not in again]
    expected = [n for n in work if n not in busy][: max(room, 0)]
    found = [plain(n) for n in machine.candidates_waiting(state)]
    assert found == expected, f"a waiting turn offers {found}, not {expected}"
