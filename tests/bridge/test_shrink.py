"""The bridge's own shrinking passes (bridge/checking/shrink.py): a block
of messages removed with its nodes renumbered, budgets counted in replays,
and the messages alone with CEILING found again."""

from __future__ import annotations

from bridge.checking.shrink import Budget, only_messages, parted, simplify, without_block
from scenarios.format import Scenario

CONSTANTS = {
    **{"node": 32, "ceiling": 200, "floor": 50, "cceiling": 40, "cfloor": 10},
    **{"jobs": 2, "ahead": 2, "tries": 3, "failures": 2},
}


def message(text: str) -> dict[str, object]:
    return {"event": "message", "kind": "user", "text": text}


def call(level: int, index: int) -> list[dict[str, object]]:
    return [
        {"event": "start", "node": [level, index]},
        {"event": "end", "node": [level, index], "line": "x"},
    ]


def test_a_block_goes_with_the_nodes_over_it_and_later_ones_renumbered() -> None:
    events = [message(str(k)) for k in range(8)]
    events += [*call(0, 5), *call(1, 2), *call(2, 1), *call(1, 0), *call(3, 0)]
    events += [{"event": "zoom", "id": 4, "n": 2}, {"event": "zoom", "id": 0, "n": 8}]
    scenario = Scenario(CONSTANTS, events)
    shrunk = without_block(scenario, 1, 1)  # messages 2 and 3
    assert shrunk is not None
    texts = [e["text"] for e in shrunk.events if e["event"] == "message"]
    assert texts == ["0", "1", "4", "5", "6", "7"]
    nodes = [e["node"] for e in shrunk.events if e["event"] == "start"]
    # leaf 5 is now leaf 3, [1, 2] (messages 4-5) now [1, 1]; [1, 0] is
    # before the block; [2, 1] (messages 4-7) would start at message 2, no
    # node of level 2 can; [3, 0] held the block.
    assert nodes == [[0, 3], [1, 1], [1, 0]]
    zooms = [(e["id"], e["n"]) for e in shrunk.events if e["event"] == "zoom"]
    assert zooms == [(2, 2)]
    assert without_block(scenario, 3, 1) is None  # no messages 8 to 15


def test_a_shrink_makes_no_more_replays_than_its_budget() -> None:
    scenario = Scenario(CONSTANTS, [message(str(k)) for k in range(40)])
    calls = []

    def still(candidate: Scenario) -> bool:
        calls.append(candidate)
        return len(candidate.events) >= 3 and candidate.events[-1]["text"] == "39"

    simplify(scenario, still, tries=25)
    assert len(calls) == 25
    calls.clear()
    small = simplify(scenario, still)
    assert [e["text"] for e in small.events][-1] == "39" and len(small.events) == 3


def test_the_messages_alone_are_kept_with_the_lowest_ceiling_that_holds() -> None:
    events = [message("long text " * 3), *call(0, 0), message("b"), message("c")]
    scenario = Scenario(CONSTANTS, events)

    def still(candidate: Scenario) -> bool:
        return int(candidate.constants["ceiling"]) >= 120

    small = only_messages(scenario, still, Budget())
    assert small.events == [message(""), message(""), message("")]
    assert small.constants == {**CONSTANTS, "ceiling": 120}
    assert only_messages(small, still, Budget()) == small  # nothing left to do
    assert only_messages(scenario, lambda _: False, Budget()) == scenario


def test_parted_lowers_a_constant_to_leave_a_bug_out_or_says_none_does() -> None:
    """`parted`: from a scenario where `alone` does not hold, a lowered
    constant where it does (a NODE no message's line fits), then simplified
    while it holds; None where no constant lowered makes it hold."""
    scenario = Scenario(CONSTANTS, [message("x" * 20), message("y" * 20), message("z")])

    def alone(s: Scenario) -> bool:  # the other bug needs a NODE of 20 bytes or more
        return int(s.constants["node"]) < 20 and len(s.events) >= 2

    found = parted(scenario, alone)
    assert found is not None and alone(found) and found.events != [] and len(found.events) == 2
    assert parted(scenario, lambda s: False) is None
