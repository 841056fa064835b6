from laws.registry import Step, step_law
from laws.spec import built, name, plain
from model.events import Start


@step_law
def merge_needs_halves(step: Step) -> None:
    """A merge starts only when both halves are built."""
    if isinstance(step.event, Start) and step.event.node.level > 0:
        level, index = plain(step.event.node)
        for half in ((level - 1, 2 * index), (level - 1, 2 * index + 1)):
            assert built(step.before, half), f"{name((level, index))} started, {name(half)} unbuilt"
