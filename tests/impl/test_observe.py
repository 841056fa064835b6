"""`Planner.observe`, everything read after an event in one call: after every
event of a chat that batches both views, waits and fails calls, it holds
exactly what the accessor of each name answers (SPEC 3, 3.3, 3.4, 4)."""

from __future__ import annotations

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Planner

CONSTANTS = Constants(node=64, ceiling=600, floor=300, cceiling=300, cfloor=150, jobs=3, ahead=2)


def accessors(planner: Planner) -> tuple[object, ...]:
    return (
        planner.view(),
        planner.size(),
        planner.shrinking(),
        planner.merges(),
        planner.compaction_view(),
        planner.compaction_merges(),
        planner.candidates(),
        planner.candidates_waiting(),
    )


def test_observe_answers_what_each_accessor_answers_after_every_event() -> None:
    planner = Planner(CONSTANTS)
    seen = {"chat batch": 0, "compaction batch": 0, "waiting": 0, "running": 0}
    for k in range(300):
        try:
            if k % 7 == 3:
                planner.wait()
            elif k % 7 == 5:
                planner.timeout()
            elif k % 3 == 0 and planner.candidates():
                planner.start(planner.candidates()[-1])
            elif k % 3 == 1 and planner.running():
                node = planner.running()[0]
                if k % 11 == 1:
                    planner.fail(node)
                else:
                    planner.end(node, f"summary {k} " + "x" * (k % 40))
            else:
                planner.message("user", f"message {k} " + "y" * (k % 90))
        except Refused:
            pass
        observed = planner.observe()
        assert observed == accessors(planner), k
        seen["chat batch"] += bool(observed[3])
        seen["compaction batch"] += bool(observed[5])
        seen["waiting"] += planner.queue.waiting
        seen["running"] += bool(planner.running())
    assert all(seen.values()), seen
