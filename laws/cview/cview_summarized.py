from laws.registry import Step, step_law
from laws.spec import built, lines, name


@step_law
def cview_summarized(step: Step) -> None:
    """Every merged line of the compaction view is built; only a message's own line waits."""
    for line in lines(step.after.compaction.view):
        assert line[0] == 0 or built(step.after, line), f"compaction line {name(line)} unbuilt"
