from laws.registry import Step, step_law
from model.events import Wait


@step_law
def need_first_running(step: Step) -> None:
    """A wait stops running merge calls, without a failure."""
    if isinstance(step.event, Wait):
        before, after = step.before.queue, step.after.queue
        assert all(n.level == 0 for n in after.running), "a merge call still runs in a wait"
        leaves = [n for n in before.running if n.level == 0]
        assert list(after.running) == leaves, "a wait stopped a leaf call"
        assert after.failures == before.failures, "a stopped call counted as a failure"
        assert after.held == before.held, "a stopped call was held as failed"
