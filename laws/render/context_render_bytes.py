from laws.registry import Step, step_law
from laws.spec import contexts, name, plain, render, shown
from model import machine


@step_law
def context_render_bytes(step: Step) -> None:
    """A node's context renders the same way, from its own lines."""
    for node, context in contexts(step.after):
        expected = render(step.after, [(line, shown(step.after, line)) for line in context])
        assert machine.render_context(step.after, node) == expected, (
            f"the context of {name(plain(node))} renders otherwise"
        )
