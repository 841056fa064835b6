from laws.registry import Step, step_law
from laws.spec import contexts, lines, name, plain


@step_law
def context_is_prefix(step: Step) -> None:
    """A node's context is a prefix of the compaction view."""
    cview = lines(step.after.compaction.view)
    for node, context in contexts(step.after):
        assert cview[: len(context)] == context, f"context of {name(plain(node))} is no prefix"
