"""The engine's planner against the reference model (SPEC 1-5, 10): the same
events, under the same engine profile, the same observations after every
step, the same refusals."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from impl.constants import KINDS, Constants
from impl.errors import Refused
from impl.planner import Planner
from impl.profile import Profile
from model import bits, machine
from model import events as ev
from model.constants import Constants as ModelConstants
from model.errors import Refused as ModelRefused
from model.node import Node as ModelNode
from model.profile import from_options
from scenarios.strategies import TOLERANCES

UNITS = ["a", "word ", "é", "中文", "😀", "\r\n", "\r", "\n", "x\ny", "ab\r\ncd", "\x85", "\ufeff"]
"""Pieces of texts: multibyte characters, every newline, and characters the
named sets of white space disagree on (SPEC 3.6)."""

SMALL = st.fixed_dictionaries(
    {
        "node": st.just(64),
        "ceiling": st.integers(400, 2000),
        "floor": st.integers(100, 400),
        "cceiling": st.integers(200, 800),
        "cfloor": st.integers(0, 200),
        "jobs": st.integers(1, 4),
        "ahead": st.integers(1, 4),
        "failures": st.integers(1, 3),
    }
)
CONSTANTS = st.one_of(SMALL, SMALL, SMALL, st.just({}))
WORDS = st.dictionaries(st.sampled_from(KINDS), st.sampled_from(["you", "talk", "é€", "x"]))
PROFILES = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {
            "trim_lines": st.booleans(),
            "kind_words": WORDS,
            "need_first": st.booleans(),
            "failure_cap": st.sampled_from(["failures", "none"]),
            "ahead_in_wait": st.booleans(),
            "empty_chat": st.sampled_from(["tags", "blank_line"]),
            "retry": st.sampled_from(["message", "tick"]),
            "held_takes_job": st.booleans(),
            "merge_order": st.sampled_from(["level", "ready"]),
            "resume": st.sampled_from(["settle", "self"]),
            "empty_reply": st.sampled_from(["ends", "fails"]),
            "not_shorter": st.sampled_from(["stops", "goes_on"]),
            "retried": st.sampled_from(["in_place", "first"]),
            "zoom_one": st.sampled_from(["line", "headed"]),
            "zoom_halves": st.sampled_from(["tags", "bare"]),
            "zoom_unbuilt": st.sampled_from(["shown", "refused"]),
            "tolerance": TOLERANCES,
            "cut": st.sampled_from(["character", "word"]),
            "ellipsis": st.sampled_from(["", "…", "..."]),
            "overlong": st.sampled_from(["cut", "kept"]),
            "replies_out": st.sampled_from(["ends", "asks"]),
            "given_line": st.sampled_from(["final", "reply", "cut"]),
            "trim_set": st.sampled_from(["unicode", "javascript", "ascii"]),
            "free_leaves": st.sampled_from(["at_once", "queued"]),
            "flat_lines": st.booleans(),
            "ahead_limit": st.sampled_from(["bound", "none"]),
            "flat_sizes": st.booleans(),
            "batches": st.sampled_from(["messages", "builds"]),
            "row_sizes": st.booleans(),
            "kinds": st.sets(st.sampled_from(KINDS), min_size=1).map(
                lambda some: [kind for kind in KINDS if kind in some]
            ),
        }
    ),
)
"""Every option of SPEC 10 but `calls`: who starts calls is the driver's
business, not the planner's (impl/profile.py)."""
ACTIONS = (
    ["message"] * 6
    + ["start"] * 5
    + ["end"] * 4
    + ["replies"] * 2
    + ["fail", "wait", "settle", "timeout", "retry", "zoom"]
)


def to_model(node: tuple[int, int]) -> ModelNode:
    return ModelNode(node[0], bits.from_int(node[1]))


def to_impl(node: ModelNode) -> tuple[int, int]:
    return node.level, bits.to_int(node.index)


@st.composite
def texts(draw: st.DrawFn, most: int) -> str:
    """Text of roughly 0..`most` bytes mixing multibyte characters and every newline."""
    head = "".join(draw(st.lists(st.sampled_from(UNITS), max_size=4)))
    unit = draw(st.sampled_from(UNITS))
    want = draw(st.one_of(st.integers(0, most // 6), st.integers(0, most)))
    body = head
    while len(body.encode()) < want:
        body += unit
    return body


class Differential(RuleBasedStateMachine):
    @initialize(values=CONSTANTS, options=PROFILES)
    def setup(self, values: dict[str, int], options: dict[str, object]) -> None:
        self.node = values.get("node", 512)
        profile = Profile.from_json(options)
        # The engine's profile as the model reads it, from its JSON form.
        model_profile = from_options(profile.to_json())
        self.model = machine.initial(ModelConstants(**values), model_profile)
        self.impl = Planner(Constants(**values), profile)

    def both(self, model_event: ev.Event, impl_call) -> None:  # type: ignore[no-untyped-def]
        try:
            after = machine.step(self.model, model_event)
        except ModelRefused as refused:
            try:
                impl_call()
            except Refused as mine:
                assert mine.rule == refused.rule, (model_event, mine, refused)
                self.model = machine.refuse(self.model)
                return
            raise AssertionError(
                f"model refused {model_event} ({refused}), engine took it"
            ) from None
        try:
            impl_call()
        except Refused as mine:
            raise AssertionError(f"engine refused {model_event} ({mine}), model took it") from None
        self.model = after

    def some_node(self, data: st.DataObject, pool: list[ModelNode]) -> tuple[int, int]:
        """Mostly a node from `pool`, sometimes any node near the chat's end."""
        if pool and data.draw(st.integers(0, 9)) != 7:
            return to_impl(data.draw(st.sampled_from(pool)))
        t = bits.to_int(self.model.count)
        level = data.draw(st.integers(0, 4))
        return level, data.draw(st.integers(0, (t >> level) + 1))

    def message(self, data: st.DataObject) -> None:
        kinds = st.sampled_from(KINDS + ("bot",))
        taken = st.just(self.impl.profile.kinds[0])
        kind = data.draw(kinds if data.draw(st.integers(0, 9)) == 7 else taken)
        text = data.draw(texts(6 * self.node))
        if data.draw(st.integers(0, 40)) == 17:
            text += "\ud800"
        self.both(ev.Message(kind, text), lambda: self.impl.message(kind, text))

    def start(self, data: st.DataObject) -> None:
        m = self.model
        pool = list(machine.candidates(m))
        if data.draw(st.integers(0, 9)) == 7:
            queue = m.queue
            pool = [*machine.view(m), *queue.unbuilt, *queue.ready, *queue.held, *queue.running]
        node = self.some_node(data, pool)
        self.both(ev.Start(to_model(node)), lambda: self.impl.start(node))

    def end(self, data: st.DataObject) -> None:
        node = self.some_node(data, list(self.model.queue.running))
        line = data.draw(texts(self.node))
        if data.draw(st.integers(0, 9)) != 7:
            line = line.encode()[: self.node].decode(errors="ignore") or "x"
        self.both(ev.End(to_model(node), line), lambda: self.impl.end(node, line))

    def replies(self, data: st.DataObject) -> None:
        node = self.some_node(data, list(self.model.queue.running))
        replies = data.draw(
            st.lists(
                st.one_of(
                    st.sampled_from(["", " ", " \n", "\x0b", "\ufeff"]), texts(3 * self.node)
                ),
                max_size=6,
            )
        )
        self.both(
            ev.End(to_model(node), replies=tuple(replies)),
            lambda: self.impl.end_replies(node, replies),
        )

    def zoom(self, data: st.DataObject) -> None:
        t = bits.to_int(self.model.count)
        n = data.draw(st.sampled_from([1, 1, 2, 4, 8, 3, 0]))
        id = data.draw(st.integers(0, t + 2)) // max(n, 1) * max(n, 1) + data.draw(
            st.sampled_from([0, 0, 0, 1])
        )
        try:
            shown = machine.zoom(self.model, bits.from_int(id), bits.from_int(n))
        except ModelRefused as refused:
            try:
                self.impl.zoom(id, n)
            except Refused as mine:
                assert mine.rule == refused.rule == "zoom"
                self.model = machine.refuse(self.model)
                return
            raise AssertionError(f"model refused zoom({id}, {n}), engine took it") from None
        assert self.impl.zoom(id, n) == shown
        self.model = machine.step(self.model, ev.Zoom(bits.from_int(id), bits.from_int(n)))

    def fail(self, data: st.DataObject) -> None:
        node = self.some_node(data, list(self.model.queue.running))
        self.both(ev.Fail(to_model(node)), lambda: self.impl.fail(node))

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(ACTIONS))
        if action in ("end", "replies", "fail") and not self.model.queue.running:
            action = "start" if data.draw(st.integers(0, 9)) != 7 else action
        match action:
            case "message":
                self.message(data)
            case "start":
                self.start(data)
            case "end":
                self.end(data)
            case "replies":
                self.replies(data)
            case "zoom":
                self.zoom(data)
            case "fail":
                self.fail(data)
            case "wait":
                self.both(ev.Wait(), self.impl.wait)
            case "settle":
                self.both(ev.Settle(), self.impl.settle)
            case "timeout":
                self.both(ev.Timeout(), self.impl.timeout)
            case "retry":
                self.both(ev.Retry(), self.impl.retry)

    @precondition(lambda self: hasattr(self, "model"))
    @invariant()
    def same_observations(self) -> None:
        m, p = self.model, self.impl
        view = tuple(to_impl(n) for n in machine.view(m))
        assert p.view() == view
        assert p.size() == machine.size(m)
        assert p.shrinking() == machine.shrinking(m)
        assert p.merges() == tuple(to_impl(n) for n in machine.merges(m))
        assert p.compaction_merges() == tuple(to_impl(n) for n in machine.compaction_merges(m))
        cview = tuple(to_impl(n) for n in machine.compaction_view(m))
        assert p.compaction_view() == cview
        candidates = tuple(to_impl(n) for n in machine.candidates(m))
        assert p.candidates() == candidates
        assert p.candidates_waiting() == tuple(to_impl(n) for n in machine.candidates_waiting(m))
        assert p.settled() == machine.settled(m)
        assert p.render() == machine.render(m)
        assert p.render_timed_out() == machine.render_timed_out(m)
        t = bits.to_int(m.count)
        probes = {
            *view[::7],
            *view[-3:],
            *cview[-3:],
            *candidates,
            (0, t),
            (0, t // 2),
            (1, t // 4),
        }
        for node in probes:
            mn = to_model(node)
            assert p.context(node) == [to_impl(n) for n in machine.context(m, mn)], node
            assert p.render_context(node) == machine.render_context(m, mn), node
            assert p.text(node) == machine.text(m, mn), node
            if node in view or node in candidates:
                assert p.source(node) == machine.source(m, mn), node


Differential.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestDifferential = Differential.TestCase
