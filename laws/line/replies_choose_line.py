from laws.registry import Step, step_law
from laws.spec import end_outcome, name, plain, text
from model.events import End


@step_law
def replies_choose_line(step: Step) -> None:
    """A call that ends with replies is built with the line SPEC 5 chooses from them
    (under the profile's chooser options, SPEC 10)."""
    event = step.event
    if not isinstance(event, End) or event.replies is None or step.refused:
        return
    kind, line = end_outcome(step.before, event, step.before.profile)
    if kind == "build":
        built = text(step.after, plain(event.node))
        assert built == line, f"{name(plain(event.node))} was built with {built!r}, not {line!r}"
