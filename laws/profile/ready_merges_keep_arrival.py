from laws.registry import Step, step_law
from laws.spec import plain, ready_merges


@step_law
def ready_merges_keep_arrival(step: Step) -> None:
    """Under `merge_order: ready` the ready merges queue in the order they became ready:
    an event keeps the order of those still ready and puts a newly ready one after
    them; otherwise they queue by (level, index)."""
    before, after = step.before, step.after
    found = [plain(n) for n in after.queue.ready]
    now = ready_merges(after)
    assert sorted(found) == now, f"the queue holds the ready merges {found}, not {now}"
    if after.profile.merge_order == "level":
        assert found == now, f"ready merges queue as {found}, not by (level, index)"
        return
    kept = [m for m in (plain(n) for n in before.queue.ready) if m in now]
    new = sorted(set(now) - set(kept))
    assert found == kept + new, f"ready merges queue as {found}, not in arrival order {kept + new}"
