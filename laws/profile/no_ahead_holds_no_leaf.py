from laws.registry import Step, declared, step_law
from laws.spec import leaves_unbuilt, node_of, plain, queue
from model import machine
from model.errors import Refused
from model.events import Start


@step_law(off=declared("ahead_limit"))
def no_ahead_holds_no_leaf(step: Step) -> None:
    """Under `ahead_limit: none` AHEAD bounds no leaf: the candidates are every unbuilt
    leaf not running or held, oldest first, however many before it are unbuilt (then the
    ready merges, as the queue orders them), cut to the room JOBS leaves, and no start is
    refused as `ahead_bound`."""
    assert step.refused != "ahead_bound", f"{step.event} was refused as ahead_bound"
    after = step.after
    expected = queue(after, after.queue.waiting)
    found = [plain(n) for n in machine.candidates(after)]
    assert found == expected, f"the queue offers {found}, not {expected}"
    beyond = leaves_unbuilt(after)[after.constants.ahead :]
    if beyond and not after.profile.self_calls:
        try:
            machine.step(after, Start(node_of(beyond[0])))
        except Refused as refused:
            assert refused.rule != "ahead_bound", f"leaf {beyond[0][1]} was refused as ahead_bound"
