from laws.registry import Step, step_law
from laws.spec import built, lines, name, plain
from model import machine
from model.events import Start


@step_law
def need_first(step: Step) -> None:
    """While a turn waits, only the view's unbuilt lines start."""
    view = lines(step.after.chat.view)
    for node in machine.candidates_waiting(step.after):
        line = plain(node)
        assert line in view and not built(step.after, line), f"{name(line)} would start in a wait"
    if isinstance(step.event, Start) and step.before.queue.waiting:
        line = plain(step.event.node)
        assert line in lines(step.before.chat.view), f"{name(line)} started in a wait"
