from laws.registry import Step, step_law
from laws.spec import choose, name, plain, source, text
from model.events import End


@step_law
def replies_choose_line(step: Step) -> None:
    """A call that ends with replies is built with the line SPEC 5 chooses from them
    (under the profile's chooser options, SPEC 10)."""
    event = step.event
    if not isinstance(event, End) or event.replies is None or step.refused:
        return
    c, p = step.before.constants, step.before.profile
    line = choose(source(step.before, plain(event.node)), list(event.replies), c.node, c.tries, p)
    if line is None:
        return
    if p.trim_lines:
        line = line.strip()
    if line:
        built = text(step.after, plain(event.node))
        assert built == line, f"{name(plain(event.node))} was built with {built!r}, not {line!r}"
