from laws.registry import Step, step_law
from laws.spec import end_outcome, name, plain, text
from model.events import End


@step_law
def trim_lines_trims(step: Step) -> None:
    """Under `trim_lines` a call's line is installed stripped of surrounding whitespace,
    and one empty after stripping fails the call; otherwise it is installed as it is
    (under `flat_lines` with each line break a space)."""
    event = step.event
    if not isinstance(event, End) or step.refused:
        return
    node = plain(event.node)
    outcome, installed = end_outcome(step.before, event, step.before.profile)
    if outcome in ("ask", "refuse"):
        return
    built = text(step.after, node)
    if installed is not None:
        assert built == installed, f"{name(node)} was built with {built!r}, not {installed!r}"
        return
    failures = dict(step.after.queue.failures).get(event.node, 0)
    before = dict(step.before.queue.failures).get(event.node, 0)
    assert built is None or failures == 0, f"{name(node)} was built from an empty line"
    assert built is not None or failures == before + 1, (
        f"a line stripped to nothing did not fail {name(node)}'s call"
    )
