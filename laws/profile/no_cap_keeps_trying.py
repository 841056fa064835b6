from laws.registry import Step, step_law
from laws.spec import built, name, plain
from model.events import Fail
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return "failure_cap failures" if profile.capped else None


@step_law(off=off)
def no_cap_keeps_trying(step: Step) -> None:
    """Without a failure cap a failure never builds its node: it is held, and may start
    again after the next message or RETRY."""
    if not isinstance(step.event, Fail) or step.refused:
        return
    node = step.event.node
    assert not built(step.after, plain(node)), f"failing built {name(plain(node))} with no cap"
    assert node in step.after.queue.held, f"failed {name(plain(node))} is not held"
    count = dict(step.after.queue.failures).get(node, 0)
    assert count == dict(step.before.queue.failures).get(node, 0) + 1, "the failure went uncounted"
