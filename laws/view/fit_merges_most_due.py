from laws.registry import Step, step_law
from laws.spec import built_after_batch, count, fitted, lines, plain
from model.events import Message


@step_law
def fit_merges_most_due(step: Step) -> None:
    """Each merge of a batch joins the pair with the greatest due, `(T - last)/2^l` as an
    exact fraction, the oldest among equals."""
    if not isinstance(step.event, Message) or step.refused or built_after_batch(step):
        return
    before = lines(step.before.chat.view) + [(0, count(step.before))]
    merges = [plain(n) for n in step.after.chat.merges]
    flaw = fitted(step.after, before, count(step.after), merges, step.after.constants.floor)
    if merges or step.before.chat.shrinking:
        assert not flaw, f"the chat view's batch {flaw}"
