from laws.registry import Step, step_law
from laws.spec import count, lines, render, shown
from model import machine


@step_law
def render_bytes(step: Step) -> None:
    """The render is `<chat>\n`, one `{start}+{count}|{text}\n` per view line (newlines
    flattened, the placeholder for an unbuilt line), then `</chat>`; the empty chat renders
    `<chat>\n</chat>` (`<chat>\n\n</chat>` under `empty_chat: blank_line`)."""
    for state in (step.before, step.after) if count(step.before) == 0 else (step.after,):
        rows = [(line, shown(state, line)) for line in lines(state.chat.view)]
        expected = render(state, rows)
        if not rows:
            blank = state.profile.empty_chat == "blank_line"
            assert expected == ("<chat>\n\n</chat>" if blank else "<chat>\n</chat>")
        assert machine.render(state) == expected, (
            f"rendered {machine.render(state)[-200:]!r}, not {expected[-200:]!r}"
        )
