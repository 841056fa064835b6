from laws.registry import Step, step_law
from laws.spec import plain, queue
from model import machine


@step_law
def queue_order(step: Step) -> None:
    """The candidates are the unbuilt leaves within AHEAD (every one under `ahead_limit:
    none`) oldest first, then the ready merges by (level, index), none running or held,
    cut to the room JOBS leaves; while a turn waits, only the view's unbuilt lines."""
    state = step.after
    expected = queue(state, state.queue.waiting)
    found = [plain(n) for n in machine.candidates(state)]
    assert found == expected, f"the queue offers {found}, not {expected}"
    expected = queue(state, True)
    found = [plain(n) for n in machine.candidates_waiting(state)]
    assert found == expected, f"as if a turn waited the queue offers {found}, not {expected}"
