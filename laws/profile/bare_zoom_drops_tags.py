from laws.registry import Step, step_law
from laws.spec import flat, halves, name, shown, zoom_node
from model import bits, machine
from model.events import Zoom


@step_law
def bare_zoom_drops_tags(step: Step) -> None:
    """Under `zoom_halves: bare` `zoom(id, n)` for n of 2 or more is its node's two
    rows alone, `{start}+{count}|{text}` with newlines flattened (the placeholder for an
    unbuilt half), joined by one newline, with no `<chat>` tags and no final newline;
    otherwise they are rendered between the tags like the view."""
    state, event = step.after, step.event
    if step.refused or not isinstance(event, Zoom) or bits.to_int(event.n) < 2:
        return
    line = zoom_node(state, bits.to_int(event.id), bits.to_int(event.n))
    if line is None:
        return  # refused_changes_nothing says whether it should have been refused
    rows = [f"{name(half)}|{flat(shown(state, half))}" for half in halves(line)]
    expected = "\n".join(rows)
    if state.profile.zoom_halves == "tags":
        expected = f"<chat>\n{expected}\n</chat>"
    found = machine.zoom(state, event.id, event.n)
    assert found == expected, f"zoom of {name(line)} shows {found!r}, not {expected!r}"
