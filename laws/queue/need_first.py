from laws.registry import Step, step_law
from laws.spec import built, lines, name, plain
from model import machine
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return None if profile.need_first else "need_first off"


@step_law(off=off)
def need_first(step: Step) -> None:
    """While a turn waits, only the view's unbuilt lines start."""
    view = lines(step.after.chat.view)
    for node in machine.candidates_waiting(step.after):
        line = plain(node)
        assert line in view and not built(step.after, line), f"{name(line)} would start in a wait"
    if step.after.queue.waiting:
        for node in step.after.started:
            line = plain(node)
            assert line in view, f"{name(line)} started in a wait"
