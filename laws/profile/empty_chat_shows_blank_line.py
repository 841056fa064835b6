from laws.registry import Step, step_law
from laws.spec import count
from model import bits, machine
from model.node import Node


@step_law
def empty_chat_shows_blank_line(step: Step) -> None:
    """No line at all renders `<chat>\n\n</chat>` under `empty_chat: blank_line`, and
    `<chat>\n</chat>` otherwise: the empty chat's view, and the context of the first
    message's leaf, which no line precedes."""
    state = step.after
    blank = state.profile.empty_chat == "blank_line"
    expected = "<chat>\n\n</chat>" if blank else "<chat>\n</chat>"
    if count(state) == 0:
        found = machine.render(state)
        assert found == expected, f"the empty chat renders {found!r}"
    else:
        first = machine.render_context(state, Node(0, bits.ZERO))
        assert first == expected, f"the first leaf's empty context renders {first!r}"
