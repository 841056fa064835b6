from laws.registry import Step, step_law
from laws.spec import built, plain
from model.events import Start


@step_law
def ahead_bound(step: Step) -> None:
    """A leaf starts only with fewer than AHEAD unbuilt leaves before it."""
    if isinstance(step.event, Start) and step.event.node.level == 0:
        i = plain(step.event.node)[1]
        unbuilt = sum(1 for j in range(i) if not built(step.before, (0, j)))
        ahead = step.before.constants.ahead
        assert unbuilt < ahead, f"leaf {i} started with {unbuilt} unbuilt before it, AHEAD {ahead}"
