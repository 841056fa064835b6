from laws.registry import Step, step_law
from laws.spec import lines, name, span, zoom_node, zoom_shown
from model import bits, machine
from model.errors import Refused
from model.events import Zoom


def zoomed(state: machine.State, id: int, n: int) -> str | None:
    try:
        return machine.zoom(state, bits.from_int(id), bits.from_int(n))
    except Refused as refused:
        assert refused.rule == "zoom", f"zoom({id}, {n}) refused as {refused.rule}"
        return None


@step_law
def zoom_opens_node(step: Step) -> None:
    """`zoom(id, 1)` is the message's line whole, `zoom(id, n)` renders the node's two
    halves, anything else is refused as `zoom` (in the shape the profile's zoom options
    give, SPEC 10)."""
    state = step.after
    asked = [(span(line)[0], 1 << line[0]) for line in lines(state.chat.view)[-3:]]
    if isinstance(step.event, Zoom):
        asked.append((bits.to_int(step.event.id), bits.to_int(step.event.n)))
    for id, n in asked + [(0, 3), (1, 2)]:
        node = zoom_node(state, id, n)
        found = zoomed(state, id, n)
        if node is None:
            assert found is None, f"zoom({id}, {n}) was not refused"
        else:
            assert found == zoom_shown(state, node), f"zoom({id}, {n}) does not open {name(node)}"
