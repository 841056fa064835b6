from dataclasses import replace

from laws.registry import Step, step_law
from model import machine
from model.events import Wait
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return "need_first on" if profile.need_first else None


@step_law(off=off)
def no_need_first_stops_nothing(step: Step) -> None:
    """Without `need_first` a wait stops no call, and while a turn waits the ready merges
    are offered as when none waits."""
    before, after = step.before, step.after
    if isinstance(step.event, Wait) and not step.refused:
        stopped = [n for n in before.queue.running if n not in after.queue.running]
        assert not stopped, f"a wait stopped {len(stopped)} calls without need_first"
    if after.queue.waiting:
        calm = replace(after, queue=replace(after.queue, waiting=False))
        merges = [n for n in machine.candidates(after) if n.level > 0]
        offered = [n for n in machine.candidates(calm) if n.level > 0]
        if after.profile.ahead_in_wait:
            assert merges == offered, "a waiting turn held back ready merges without need_first"
