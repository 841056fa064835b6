from laws.registry import Step, step_law
from laws.spec import KINDS, count
from model import machine
from model.errors import Refused
from model.events import Message


@step_law
def kinds_refuse_others(step: Step) -> None:
    """A message of a kind the profile's `kinds` leaves out is refused as `kind`, as one of
    no kind at all is, and one of a kind it names is never refused as `kind`."""
    taken = step.before.profile.kinds
    if isinstance(step.event, Message):
        named = step.event.kind in taken
        assert (step.refused == "kind") != named, (
            f"a {step.event.kind} message under kinds {taken} was "
            f"{'refused as ' + step.refused if step.refused else 'taken'}"
        )
    left_out = [kind for kind in KINDS if kind not in taken]
    if left_out:
        try:
            after = machine.step(step.after, Message(left_out[0], "x"))
        except Refused as refused:
            assert refused.rule == "kind", f"a {left_out[0]} message was refused as {refused.rule}"
        else:
            assert count(after) == count(step.after), f"a {left_out[0]} message was logged"
            raise AssertionError(f"a {left_out[0]} message was taken under kinds {taken}")
