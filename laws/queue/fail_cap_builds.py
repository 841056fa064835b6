from laws.registry import Step, step_law
from laws.spec import cut, name, plain, source, text
from model.events import Fail
from model.profile import Profile


def off(profile: Profile) -> str | None:
    return None if profile.capped else "failure_cap none"


@step_law(off=off)
def fail_cap_builds(step: Step) -> None:
    """The FAILURES-th failure of a node builds it from its source cut to NODE bytes."""
    if not isinstance(step.event, Fail) or step.refused:
        return
    node = plain(step.event.node)
    failed = dict(step.before.queue.failures).get(step.event.node, 0) + 1
    built = text(step.after, node)
    c = step.after.constants
    if failed < c.failures:
        assert built is None, f"{name(node)} was built after {failed} failures"
        return
    expected = cut(source(step.before, node), c.node)
    assert built == expected, f"failure {failed} of {name(node)} built {built!r}, not {expected!r}"
