from dataclasses import replace

from laws.registry import Step, step_law
from laws.spec import choose, name, plain, source, text
from model.events import End


@step_law
def goes_on_past_not_shorter(step: Step) -> None:
    """Under `not_shorter: goes_on` a follow-up not shorter than the best does not end
    the tries: the call reads on, to a fit, an empty reply or TRIES, and keeps the
    shortest reply; otherwise such a follow-up ends them. Where the two differ on a
    call's replies, the node is built with the line of the declared one."""
    event = step.event
    if not isinstance(event, End) or event.replies is None or step.refused:
        return
    before, c, node = step.before, step.before.constants, plain(event.node)
    replies, origin = list(event.replies), source(step.before, plain(event.node))
    declared = choose(origin, replies, c.node, c.tries, before.profile)
    other = "stops" if before.profile.not_shorter == "goes_on" else "goes_on"
    undeclared = choose(
        origin, replies, c.node, c.tries, replace(before.profile, not_shorter=other)
    )
    if declared is None or declared == undeclared:
        return
    line = declared.strip() if before.profile.trim_lines else declared
    if line:
        built = text(step.after, node)
        assert built == line, f"{name(node)} was built with {built!r}, not {line!r}"
