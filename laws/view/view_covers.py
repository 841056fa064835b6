from laws.registry import Step, step_law
from laws.spec import count, tiles


@step_law
def view_covers(step: Step) -> None:
    """After any history the view tiles 0..T-1, each message once, oldest first, every
    line a tree node."""
    flaw = tiles(step.after.chat.view, count(step.after))
    assert flaw is None, f"the chat view does not tile: {flaw}"
