"""How merge-reports joins the shards' causes (bridge/outputs/merge.py
`merged_causes`), as one run's grouping would (bridge/checking/causes.py
`group`): the cause of the most scenarios first, whatever its id; and a
cause one shard left unshrunk joined to the one cause another shard shrunk
from the same first divergence, where one run would have put its scenarios."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bridge.checking.causes import parse
from bridge.outputs.merge import merged_causes


def cause(id: str, *scenarios: str) -> dict[str, Any]:
    """A cause as a shard's JSON report holds it (the fields merging reads)."""
    keeps = parse(id).keeps
    return {"id": id, "keeps": None if keeps is None else list(keeps), "scenarios": list(scenarios)}


def merged(*shards: list[dict[str, Any]]) -> tuple[list[tuple[str, list[str]]], dict[str, Any]]:
    """The merged causes as (id, scenarios), and each scenario's cause after."""
    reports = [(Path(f"shard{k}.json"), {"causes": c}) for k, c in enumerate(shards)]
    cases = [
        {"path": name, "cause": c["id"]}
        for shard in shards
        for c in shard
        for name in c["scenarios"]
    ]
    causes = merged_causes(reports, cases)
    return [(c["id"], sorted(c["scenarios"])) for c in causes], {
        case["path"]: case["cause"] for case in cases
    }


def test_the_cause_of_most_scenarios_comes_first_whatever_its_id() -> None:
    """`line@fail` has three scenarios over two shards, `bits@message` two in
    one: `line` first, though `bits` comes first by name and by shard."""
    found, _ = merged(
        [cause("bits@message:message", "a", "b"), cause("line@fail:message+fail", "c")],
        [cause("line@fail:message+fail", "d", "e")],
    )
    assert found == [
        ("line@fail:message+fail", ["c", "d", "e"]),
        ("bits@message:message", ["a", "b"]),
    ]
    found, _ = merged([cause("bits@message", "a")], [cause("views@message", "b", "c")])
    assert [id for id, _ in found] == ["views@message", "bits@message"]


def test_a_cause_left_unshrunk_joins_the_one_shrunk_from_its_divergence() -> None:
    """One shard shrank `views@message` (to messages and starts), another did
    not shrink it: one cause, the shrunk one's id, every scenario, each
    scenario's cause renamed; in either order of the shards."""
    shrunk = cause("views@message:message+start", "a", "b")
    unshrunk = cause("views@message", "c")
    for shards in ([[shrunk], [unshrunk]], [[unshrunk], [shrunk]]):
        found, cause_of = merged(*shards)
        assert found == [("views@message:message+start", ["a", "b", "c"])]
        assert cause_of == dict.fromkeys("abc", "views@message:message+start")


def test_an_unshrunk_cause_stays_apart_where_two_shrunk_ones_could_take_it() -> None:
    """Two causes shrunk from `views@message` to kinds neither of which holds
    the other's are two bugs: the unshrunk scenarios could be either's, so
    they stay a cause of their own, as one run leaves them; and an unshrunk
    cause of another divergence is never joined."""
    found, _ = merged(
        [cause("views@message:message+zoom", "a"), cause("views@message:message+fail", "b")],
        [cause("views@message", "c"), cause("line@end", "d")],
    )
    assert sorted(found) == [
        ("line@end", ["d"]),
        ("views@message", ["c"]),
        ("views@message:message+fail", ["b"]),
        ("views@message:message+zoom", ["a"]),
    ]
