from laws.registry import Step, step_law
from laws.spec import built, name, plain


@step_law
def merge_needs_halves(step: Step) -> None:
    """A merge starts only when both halves are built."""
    for node in step.after.started:
        if node.level > 0:
            level, index = plain(node)
            for half in ((level - 1, 2 * index), (level - 1, 2 * index + 1)):
                assert built(step.after, half), (
                    f"{name((level, index))} started, {name(half)} unbuilt"
                )
