"""Failures grouped into causes (issue 34, bridge/checking/causes.py): a
divergence's signature, its id written in a list and read back, and the
grouping, shown here on a world of two mistakes that a probe answers for
without an engine, so that what decides each cause is plain; the corpus
runs of planted engines are in test_corpus_causes.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.checking.causes import (
    Cause,
    Member,
    Signature,
    group,
    parse,
    read_known,
    signature,
    which,
    write_known,
)
from bridge.checking.compare import MISSING, Divergence
from bridge.formats.usage import UsageError
from scenarios.format import Scenario

MESSAGE = {"event": "message", "kind": "user", "size": 3}
EVENTS = {
    kind: {"event": kind}
    for kind in ("fail", "zoom", "wait", "retry", "start", "end", "settle", "timeout")
}


def at(kind: str, field: str, expected: object = 1, found: object = 2) -> Divergence:
    event = (
        {"event": "end", "node": [0, 0], "replies": []} if kind == "replies" else {"event": kind}
    )
    return Divergence(3, 3, {**event, "at": 3}, field, expected, found)


def test_a_signature_is_the_part_the_event_kind_and_a_refusal_s_rule() -> None:
    # Fields of one part are one signature: shrinking keeps the part.
    assert signature(at("message", "size")) == signature(at("message", "cmerges"))
    assert signature(at("message", "size")) == Signature("views", "message")
    assert signature(at("message", "size")) != signature(at("end", "size"))
    assert signature(at("end", "line")) == Signature("line", "end")
    assert signature(at("replies", "line")) == Signature("line", "replies")
    assert signature(at("fail", "queue_waiting")) == Signature("queue", "fail")
    # A refusal is signed by the model's rule, whatever the engine says.
    assert signature(at("start", "refused", "jobs_bound", MISSING)).id == "refused.jobs_bound@start"
    assert signature(at("start", "refused", "jobs_bound", "ahead_bound")).rule == "jobs_bound"
    assert signature(at("start", "refused", MISSING, "anything")).id == "refused.allowed@start"
    detail = Divergence(9, None, None, "render", "a", "b")
    assert signature(detail).id == "views@detail"
    # A field an engine adds is a word of its own in the id, and nothing more.
    odd = signature(at("wait", "x y:@z\n"))
    assert odd.id == "x_y_z@wait" and parse(odd.id) == odd


IDS = [
    "slip:queue.leaf_may_start.lt-le.0",
    "views@message:message",
    "refused.jobs_bound@start:message+start",
    "timed-out-render@timeout:message+start+wait+timeout",
    "line@replies:message+start+replies",
    "queue@fail",
    "views@detail:none",
]


@pytest.mark.parametrize("text", IDS)
def test_an_id_names_its_signature(text: str) -> None:
    assert parse(text).id == text


def test_an_id_lists_what_a_shrunk_scenario_keeps_in_one_order() -> None:
    kept = Signature("queue", "fail").keeping(
        Scenario({}, [EVENTS["fail"], MESSAGE, EVENTS["start"], EVENTS["fail"]])
    )
    assert kept.id == "queue@fail:message+start+fail"
    assert parse("queue@fail:fail+start+message") == kept


@pytest.mark.parametrize(
    "text",
    ["views", "views@", "views@nothing", "views@message:", "views@message:message+bogus",
     "refused@start", "views.rule@message", "views@message message", "slip:queue"],
)  # fmt: skip
def test_a_wrong_id_says_why(text: str) -> None:
    with pytest.raises(ValueError, match="cause id|kind of event|rule|slip's id"):
        parse(text)


def test_a_list_of_causes_is_written_and_read_back(tmp_path: Path) -> None:
    listed = tmp_path / "causes.txt"
    found = Cause(parse("views@message:message"), ["a.jsonl", "b.jsonl"], "a.jsonl")
    found.written = "shrunk/x.jsonl"
    write_known(listed, [parse("zoom@zoom:message+zoom"), found], "--write-known-causes")
    text = listed.read_text(encoding="utf-8")
    assert "views@message:message  # the views" in text and "2 scenario(s)" in text
    assert read_known(listed) == [parse("zoom@zoom:message+zoom"), found.signature]


def test_a_wrong_line_in_a_list_names_the_file_and_line(tmp_path: Path) -> None:
    listed = tmp_path / "causes.txt"
    listed.write_text("# mine\nviews@message:message\n\nzoom@zoom two words\n", encoding="utf-8")
    with pytest.raises(UsageError, match=rf"^--known-causes {listed}:4: one cause id a line"):
        read_known(listed)
    listed.write_text("views@wrongkind\n", encoding="utf-8")
    with pytest.raises(UsageError, match=rf"^--known-causes {listed}:1: .*no kind of event"):
        read_known(listed)
    with pytest.raises(UsageError, match="cannot be read"):
        read_known(tmp_path / "absent.txt")


class World:
    """Two mistakes behind one first divergence (the views differ at a
    message): one needs a fail, the other a zoom, each with messages. A
    scenario diverges when it holds what either needs; shrunk, it keeps
    what the first it holds needs. A scenario with `hidden` events (calls
    that built what the mistake needs, say) shows it only with them: its
    reduction to a cause's kinds hides it. Every shrink and replay counted."""

    def __init__(self) -> None:
        self.shrinks = 0
        self.replays = 0

    @staticmethod
    def kinds(scenario: Scenario) -> set[str]:
        return {e["event"] for e in scenario.events}

    def diverges(self, scenario: Scenario, wanted: Signature) -> bool:
        self.replays += 1
        held = self.kinds(scenario)
        if "hidden" in {e.get("kind") for e in scenario.events} and "start" not in held:
            return False
        return wanted.provisional() == KEY and "message" in held and bool(held & {"fail", "zoom"})

    def shrunk(self, scenario: Scenario, wanted: Signature) -> Scenario:
        self.shrinks += 1
        needed = "fail" if "fail" in self.kinds(scenario) else "zoom"
        return Scenario({}, [MESSAGE, EVENTS[needed]])


KEY = Signature("views", "message")


def member(name: str, *kinds: str, hidden: bool = False) -> Member:
    events = [{**MESSAGE, "kind": "hidden" if hidden else "user"}]
    events += [EVENTS[k] for k in kinds] + [MESSAGE]
    return Member(name, KEY, Scenario({}, events))


def test_two_mistakes_behind_one_first_divergence_are_two_causes() -> None:
    world = World()
    members = [
        member("f1", "fail"),
        member("f2", "wait", "fail", "wait"),
        member("z1", "zoom", "zoom"),
        member("z2", "start", "zoom", "end", "start"),
        member("f3", "retry", "fail", "retry", "wait"),
    ]
    causes = group(members, world)
    assert {c.id: sorted(c.scenarios) for c in causes} == {
        "views@message:message+fail": ["f1", "f2", "f3"],
        "views@message:message+zoom": ["z1", "z2"],
    }
    assert world.shrinks == 2  # one per cause; the others each replayed once, reduced
    fails = next(c for c in causes if c.id.endswith("fail"))
    assert fails.representative == "f1" and fails.events_before == 3


def test_one_mistake_in_many_scenarios_is_one_cause_even_where_a_reduction_hides_it() -> None:
    world = World()
    members = [member(f"s{k}", *["wait"] * k, "fail") for k in range(6)]
    members += [member(f"h{k}", "start", *["retry"] * k, "fail", hidden=True) for k in range(4)]
    (cause,) = group(members, world)
    assert cause.id == "views@message:message+fail" and len(cause.scenarios) == 10
    # The hidden ones no longer diverge reduced to messages and fails: the
    # smallest of them are shrunk in turn, three in all at most, and each
    # stands for the same cause; those left join it.
    assert world.shrinks == 3


def test_a_shrink_that_keeps_more_kinds_is_the_same_cause_named_by_the_fewer() -> None:
    class Stopped(World):
        """A shrink that stops short on the smallest scenario, as a spent budget does."""

        def shrunk(self, scenario: Scenario, wanted: Signature) -> Scenario:
            if self.shrinks == 0:
                self.shrinks += 1
                return Scenario({}, [MESSAGE, EVENTS["wait"], EVENTS["fail"]])
            return super().shrunk(scenario, wanted)

    world = Stopped()
    members = [
        member("a", "wait", "fail"),
        member("b", "start", "fail", "retry", hidden=True),
        member("c", "start", "retry", "fail", "retry", hidden=True),
    ]
    (cause,) = group(members, world)
    assert cause.id == "views@message:message+fail" and cause.representative == "b"
    assert sorted(cause.scenarios) == ["a", "b", "c"] and world.shrinks == 3


def test_what_stands_for_no_cause_is_a_cause_not_shrunk() -> None:
    class Flaky(World):
        def diverges(self, scenario: Scenario, wanted: Signature) -> bool:
            return False  # the engine answers otherwise now

    (cause,) = group([member("a", "fail"), member("b", "fail")], Flaky())
    assert cause.id == "views@message" and cause.shrunk is None and cause.representative is None
    assert sorted(cause.scenarios) == ["a", "b"]


def test_at_most_three_scenarios_of_one_first_divergence_are_shrunk() -> None:
    class Many(World):
        """Each scenario needs its own kind beside messages: every shrink differs."""

        def diverges(self, scenario: Scenario, wanted: Signature) -> bool:
            self.replays += 1
            return len(self.kinds(scenario)) >= 2

        def shrunk(self, scenario: Scenario, wanted: Signature) -> Scenario:
            self.shrinks += 1
            own = sorted(self.kinds(scenario) - {"message"})[0]
            return Scenario({}, [MESSAGE, EVENTS[own]])

    world = Many()
    kinds = ("fail", "zoom", "wait", "retry", "settle")
    causes = group([member(k, k) for k in kinds], world)
    assert world.shrinks == 3
    assert sorted(c.id for c in causes) == [
        "views@message",
        "views@message:message+fail",
        "views@message:message+retry",
        "views@message:message+settle",
    ]
    assert sorted(next(c for c in causes if c.id == "views@message").scenarios) == ["wait", "zoom"]


def test_a_known_cause_is_told_by_one_replay_of_what_it_keeps() -> None:
    world = World()
    known = [parse("views@message:message+zoom"), parse("views@message:message+fail")]
    cut = member("x", "wait", "fail").cut
    assert which(cut, KEY, known, world) == known[1] and world.replays == 2
    assert which(cut, Signature("queue", "message"), known, world) is None
    assert which(cut, KEY, [parse("views@message")], world) == parse("views@message")


def test_shards_causes_merge_as_one_run_s() -> None:
    """merge-reports: a cause in two shards is one, with both shards'
    scenarios; two shrinks of which one keeps all the other's kinds are
    one, named by the fewer; a cause not shrunk is one only with itself."""
    from bridge.outputs.merge import merged_causes

    def cause(id: str, *scenarios: str) -> dict[str, object]:
        return {"id": id, "scenarios": list(scenarios), "shrunk": f"{id}.jsonl"}

    one = {"causes": [cause("views@message:message+start", "a"), cause("queue@fail", "b")]}
    two = {"causes": [cause("views@message:message", "c"), cause("queue@fail", "d")]}
    cases = [{"path": p, "cause": c} for p, c in (("a", one["causes"][0]["id"]), ("c", "x"))]
    merged = merged_causes([(Path("1.json"), one), (Path("2.json"), two)], cases)
    assert [(c["id"], c["scenarios"], c["shrunk"]) for c in merged] == [
        ("queue@fail", ["b", "d"], "queue@fail.jsonl"),
        ("views@message:message", ["a", "c"], "views@message:message.jsonl"),
    ]
    assert [case["cause"] for case in cases] == ["views@message:message", "x"]
    with pytest.raises(UsageError, match="^3.json: a cause is not one a run writes"):
        merged_causes([(Path("3.json"), {"causes": [{"id": "bogus"}]})], [])


@pytest.mark.parametrize(
    ("a", "b", "one"),
    [
        # One AHEAD bug: the queue (SPEC 4) at starts, and after a fail at
        # fails; a start taken that SPEC 4.1 refuses enforces SPEC 4 too.
        ("queue@start:message+start", "queue@fail:message+start+fail", True),
        ("refused.ahead_bound@start:message+start", "queue@message:message", True),
        # Other sections of SPEC: the zoom (3.5) and the views (3); a
        # message refused (SPEC 4.1, not a call's event) and the queue.
        ("zoom@zoom:message+zoom", "views@message:message", False),
        ("refused.utf8@message:message", "queue@start:message+start", False),
        # One section, kinds neither holds all of: two bugs.
        ("queue@start:message+start", "queue@fail:message+fail", False),
        # Not shrunk: one only with its own provisional signature.
        ("queue@start", "queue@fail:message+start+fail", False),
        ("queue@start", "queue@start:message+start", True),
    ],
)
def test_causes_of_one_section_whose_kept_kinds_nest_are_one(a: str, b: str, one: bool) -> None:
    assert parse(a).same_cause(parse(b)) is one
    assert parse(b).same_cause(parse(a)) is one
