from laws.registry import Step, declared, step_law
from laws.spec import count, source
from model import bits, machine
from model.events import Message, Zoom


@step_law(off=declared("zoom_one"))
def zoom_one_shows_head(step: Step) -> None:
    """Under `zoom_one: headed` `zoom(id, 1)` is `{id}+0|` then message id's line whole,
    newlines as they are."""
    state, event = step.after, step.event
    if step.refused or not isinstance(event, Message | Zoom) or count(state) == 0:
        return
    id = count(state) - 1
    if isinstance(event, Zoom) and bits.to_int(event.n) == 1:
        id = bits.to_int(event.id)
    expected = f"{id}+0|{source(state, (0, id))}"
    found = machine.zoom(state, bits.from_int(id), bits.ONE)
    assert found == expected, f"zoom({id}, 1) shows {found!r}, not {expected!r}"
