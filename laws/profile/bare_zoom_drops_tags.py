from laws.registry import Step, declared, step_law
from laws.spec import flat, halves, lines, name, shown, span, zoom_node
from model import bits, machine
from model.events import Zoom


@step_law(off=declared("zoom_halves"))
def bare_zoom_drops_tags(step: Step) -> None:
    """Under `zoom_halves: bare` `zoom(id, n)` for n of 2 or more is its node's two rows
    alone, `{start}+{count}|{text}` with newlines flattened (the placeholder for an
    unbuilt half), joined by one newline, with no `<chat>` tags and no final newline."""
    state, event = step.after, step.event
    asked = [line for line in lines(state.chat.view)[-2:] if line[0]]
    if isinstance(event, Zoom) and not step.refused and bits.to_int(event.n) >= 2:
        level = bits.to_int(event.n).bit_length() - 1
        asked.append((level, bits.to_int(event.id) >> level))
    for line in asked:
        if zoom_node(state, span(line)[0], 1 << line[0]) is None:
            continue  # refused: unbuilt_zoom_refused and refused_changes_nothing say when
        expected = "\n".join(f"{name(half)}|{flat(shown(state, half))}" for half in halves(line))
        found = machine.zoom(state, bits.from_int(span(line)[0]), bits.from_int(1 << line[0]))
        assert found == expected, f"zoom of {name(line)} shows {found!r}, not {expected!r}"
