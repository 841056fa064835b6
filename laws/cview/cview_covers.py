from laws.registry import Step, step_law
from laws.spec import count, tiles


@step_law
def cview_covers(step: Step) -> None:
    """After any history the compaction view tiles 0..T-1, each message once, oldest
    first, every line a tree node."""
    flaw = tiles(step.after.compaction.view, count(step.after))
    assert flaw is None, f"the compaction view does not tile: {flaw}"
