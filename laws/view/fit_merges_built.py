from laws.registry import Step, step_law
from laws.spec import built, name, plain


@step_law
def fit_merges_built(step: Step) -> None:
    """A batch merges only into built parents, in the chat view and the compaction view."""
    for parent in step.after.chat.merges + step.after.compaction.merges:
        assert built(step.after, plain(parent)), (
            f"a batch merged into unbuilt {name(plain(parent))}"
        )
