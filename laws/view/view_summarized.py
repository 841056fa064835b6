from laws.registry import Step, step_law
from laws.spec import built, lines, name


@step_law
def view_summarized(step: Step) -> None:
    """Every merged line of the view is built; only a message's own line waits for its summary."""
    for line in lines(step.after.chat.view):
        assert line[0] == 0 or built(step.after, line), f"view line {name(line)} is not built"
