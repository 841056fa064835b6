from laws.registry import Step, step_law
from laws.spec import built, context_end, contexts, lines, name, plain, span


@step_law
def context_ends_at_node(step: Step) -> None:
    """A node's context ends at the node and holds only built lines: it stops only at
    an unbuilt line or at the node."""
    cview = lines(step.after.compaction.view)
    for node, context in contexts(step.after):
        stop = context_end(plain(node))
        for line in context:
            assert built(step.after, line), (
                f"context of {name(plain(node))} holds unbuilt {name(line)}"
            )
            assert span(line)[1] <= stop, f"context of {name(plain(node))} passes its end {stop}"
        rest = cview[len(context) :]
        if rest:
            nxt = rest[0]
            assert not built(step.after, nxt) or span(nxt)[1] > stop, (
                f"context of {name(plain(node))} stops early, before built {name(nxt)}"
            )
