from laws.registry import Step, step_law
from laws.spec import context_nodes, lines, name, plain
from model import machine


@step_law
def context_is_prefix(step: Step) -> None:
    """A node's context is a prefix of the compaction view."""
    cview = lines(step.after.compaction.view)
    for node in context_nodes(step.after):
        context = lines(machine.context(step.after, node))
        assert cview[: len(context)] == context, f"context of {name(plain(node))} is no prefix"
