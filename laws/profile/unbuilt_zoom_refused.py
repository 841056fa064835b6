from laws.registry import Step, declared, step_law
from laws.spec import built, count, halves, lines, name, span
from model import bits, machine
from model.errors import Refused


@step_law(off=declared("zoom_unbuilt"))
def unbuilt_zoom_refused(step: Step) -> None:
    """Under `zoom_unbuilt: refused` a zoom of a node whose halves are not both built
    is refused as `zoom`, and one whose halves are built is taken."""
    state = step.after
    t = count(state)
    asked = [line for line in lines(state.chat.view)[-2:] if line[0]]
    if t >= 2:
        asked.append((1, (t - 2) // 2))
    for line in asked:
        unbuilt = [half for half in halves(line) if not built(state, half)]
        try:
            machine.zoom(state, bits.from_int(span(line)[0]), bits.from_int(1 << line[0]))
        except Refused as refused:
            assert refused.rule == "zoom", f"a zoom of {name(line)} was refused as {refused.rule}"
            assert unbuilt, f"a zoom of {name(line)}, both halves built, was refused"
            continue
        assert not unbuilt, f"a zoom of {name(line)} was taken with {name(unbuilt[0])} unbuilt"
