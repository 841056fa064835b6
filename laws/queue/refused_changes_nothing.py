from laws.registry import Step, step_law
from laws.spec import event_name, rule, without_last_event


@step_law
def refused_changes_nothing(step: Step) -> None:
    """Every event is taken or refused; one the state does not allow is refused,
    naming its rule (SPEC 4.1), and changes nothing. (The histories report a
    model that raises anything else as this law broken.)"""
    expected = rule(step.before, step.event)
    what = event_name(step.event)
    assert step.refused == expected, (
        f"a {what} event was {'refused as ' + step.refused if step.refused else 'taken'}; "
        f"SPEC 4.1 says {'refused as ' + expected if expected else 'taken'}"
    )
    if step.refused:
        assert step.after == without_last_event(step.before), f"a refused {what} changed the chat"
