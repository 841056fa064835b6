from laws.registry import Step, step_law
from laws.spec import batch_due, built_after_batch, mergeable_pairs, view_size


@step_law
def fit_reaches_budget(step: Step) -> None:
    """A batch ends at or under its budget (FLOOR) unless no pair is mergeable."""
    if not step.refused and batch_due(step.before, step.event) and not built_after_batch(step):
        size = view_size(step.after, step.after.chat.view)
        pairs = mergeable_pairs(step.after, step.after.chat.view)
        floor = step.after.constants.floor
        assert size <= floor or not pairs, f"batch stopped at {size} > {floor} with pairs {pairs}"
