from laws.registry import Step, step_law
from model.events import Wait
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return None if profile.need_first else "need_first off"


@step_law(off=off)
def need_first_running(step: Step) -> None:
    """A wait stops running merge calls, without a failure."""
    if isinstance(step.event, Wait) and not step.refused:
        before, after = step.before.queue, step.after.queue
        # Calls the event started are new (under `resume: self` the turn may
        # already have gone on, and `calls: self` started merges again).
        kept = [n for n in after.running if n not in step.after.started]
        assert all(n.level == 0 for n in kept), "a merge call still runs in a wait"
        leaves = [n for n in before.running if n.level == 0]
        assert kept == leaves, "a wait stopped a leaf call"
        assert after.failures == before.failures, "a stopped call counted as a failure"
        assert after.held == before.held, "a stopped call was held as failed"
