from laws.registry import Step, declared, step_law
from laws.spec import declared_outcome, end_outcome, name, plain, text
from model.events import End


@step_law(off=declared("flat_lines"))
def flat_lines_spaced(step: Step) -> None:
    """Under `flat_lines` a call's line is installed with each `\\r` and each `\\n` a
    space (`\\r\\n` two), as long as it was, so no line a call installs holds a line
    break. Where the line as given or chosen would differ, the node is built with the
    spaced one."""
    declared_outcome(step, "flat_lines", False)
    event = step.event
    if not isinstance(event, End) or step.refused:
        return
    if end_outcome(step.before, event, step.before.profile)[0] == "build":
        built = text(step.after, plain(event.node)) or ""
        assert "\r" not in built and "\n" not in built, (
            f"{name(plain(event.node))} was built with a line break: {built!r}"
        )
