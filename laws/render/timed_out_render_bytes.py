from laws.registry import Step, step_law
from laws.spec import cut, lines, render, source, text
from model import machine


@step_law
def timed_out_render_bytes(step: Step) -> None:
    """The timed-out render shows each unbuilt line as its source cut to NODE bytes,
    flattened, and every other line as the render does."""
    state = step.after
    node = state.constants.node
    rows = []
    for line in lines(state.chat.view):
        found = text(state, line)
        rows.append((line, cut(source(state, line), node) if found is None else found))
    expected = render(state, rows)
    assert machine.render_timed_out(state) == expected, "the timed-out render differs"
