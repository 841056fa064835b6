from laws.registry import Step, step_law
from laws.spec import broken_rules, event_name, two_rule_events
from model import machine
from model.errors import Refused


@step_law
def refusal_names_first_rule(step: Step) -> None:
    """An event that breaks several rules of SPEC 4.1 is refused naming the
    first of them in SPEC 4.1's order (checked after every step, on events
    made to break two rules at once in the state it reached)."""
    for event in two_rule_events(step.after, step.event):
        broken = broken_rules(step.after, event)
        if len(broken) < 2:
            continue
        what = f"a {event_name(event)} event breaking {' and '.join(broken)} ({event})"
        try:
            machine.step(step.after, event)
        except Refused as refusal:
            assert refusal.rule == broken[0], (
                f"after the last event, {what} was refused as {refusal.rule}; "
                f"SPEC 4.1 names the first, {broken[0]}"
            )
        else:
            raise AssertionError(f"after the last event, {what} was taken")
