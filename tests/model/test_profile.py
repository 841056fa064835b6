"""The engine profile's policies (SPEC 10), each with values worked by hand
from SPEC's words: what changes under the option, and that SPEC's rule
stands without it."""

from __future__ import annotations

import pytest

from model import machine
from model.constants import Constants
from model.events import End, Event, Message, Retry, Settle, Timeout, Wait
from model.line import Choice, choose_line
from model.profile import Profile, from_options, options
from tests.model.helpers import N, end, fail, refused, start

C = Constants(node=16, jobs=2, ahead=2, failures=3)
LONG = Message("user", "x" * 20)  # a 26-byte line: over NODE 16, so it needs a call
BLANK = Profile(empty_chat="blank_line")


def run(profile: Profile, *events: Event, constants: Constants = C) -> machine.State:
    s = machine.initial(constants, profile)
    for event in events:
        s = machine.step(s, event)
    return s


def test_empty_chat_blank_line_puts_a_blank_line_between_the_tags() -> None:
    assert machine.render(run(Profile())) == "<chat>\n</chat>"
    assert machine.render(run(BLANK)) == "<chat>\n\n</chat>"
    # A turn that timed out on the empty chat reads no line either.
    assert machine.render_timed_out(run(BLANK, Wait(), Timeout())) == "<chat>\n\n</chat>"


def test_empty_chat_applies_to_an_empty_context_and_to_no_view_with_lines() -> None:
    s = run(BLANK, LONG)
    # No line lies before message 0: leaf 0's context is empty.
    assert machine.render_context(s, N(0, 0)) == "<chat>\n\n</chat>"
    assert machine.render(s) == "<chat>\n0+1|(not summarized yet: zoom it)\n</chat>"
    assert machine.render_context(run(Profile(), LONG), N(0, 0)) == "<chat>\n</chat>"


def test_kinds_left_out_are_refused_as_kind_and_change_nothing() -> None:
    talk = Profile(kinds=("user", "unii"))
    s = run(talk, Message("user", "hi"))
    assert refused(s, Message("tool", "ls")) == "kind"
    assert refused(s, Message("bot", "hi")) == "kind"
    s = machine.step(s, Message("unii", "hello"))
    assert machine.render(s) == "<chat>\n0+1|user: hi\n1+1|unii: hello\n</chat>"
    # SPEC's own profile takes every kind of SPEC 1.
    assert machine.render(run(Profile(), Message("tool", "ls"))) == "<chat>\n0+1|tool: ls\n</chat>"


def test_kinds_are_some_of_spec_1_s_in_its_order() -> None:
    assert from_options({"kinds": ["work", "user"]}).kinds == ("user", "work")
    assert options(Profile(kinds=("user", "work")))["kinds"] == ["user", "work"]
    for bad in ([], ["bot"], ["user", "user"], "user"):
        with pytest.raises(ValueError):
            from_options({"kinds": bad})


def test_retry_tick_holds_a_failed_node_past_the_next_message() -> None:
    tick = Profile(retry="tick")
    # Leaf 0 fails and is held; message 1 arrives.
    s = run(tick, LONG, start(0, 0), fail(0, 0), LONG)
    assert machine.candidates(s) == (N(0, 1),)
    assert refused(s, start(0, 0)) == "retry_waits"
    # Only RETRY having passed lets it start again, ahead of leaf 1 (oldest first).
    assert machine.candidates(machine.step(s, Retry())) == (N(0, 0), N(0, 1))
    # SPEC: the next message already let it start again.
    s = run(Profile(), LONG, start(0, 0), fail(0, 0), LONG)
    assert machine.candidates(s) == (N(0, 0), N(0, 1))


def test_a_held_node_takes_a_place_of_jobs_under_held_takes_job() -> None:
    c = Constants(node=16, jobs=2, ahead=4, failures=3)
    events = (LONG, LONG, LONG, start(0, 0), fail(0, 0))
    # SPEC: leaf 0 is held, two places are free for leaves 1 and 2.
    assert machine.candidates(run(Profile(), *events, constants=c)) == (N(0, 1), N(0, 2))
    held = run(Profile(held_takes_job=True), *events, constants=c)
    # Leaf 0 waits to retry in one of the two places: one is left, for leaf 1.
    assert machine.candidates(held) == (N(0, 1),)
    held = machine.step(held, start(0, 1))
    assert refused(held, start(0, 2)) == "jobs_bound"
    # RETRY frees its place: leaf 0 may start again, first.
    assert machine.candidates(machine.step(held, Retry())) == (N(0, 0),)


def test_merge_order_ready_offers_merges_in_the_order_they_became_ready() -> None:
    c = Constants(node=16, jobs=4, ahead=4, failures=3)
    ten = "x" * 10  # two 10-byte halves make a 21-byte source: each merge needs a call
    events = [LONG] * 4 + [start(0, k) for k in range(4)]
    # The right pair's halves are built first: merge 2+2 is ready before 0+2.
    events += [end(0, 2, ten), end(0, 3, ten), end(0, 0, ten), end(0, 1, ten)]
    assert machine.candidates(run(Profile(), *events, constants=c)) == (N(1, 0), N(1, 1))
    arrival = run(Profile(merge_order="ready"), *events, constants=c)
    assert machine.candidates(arrival) == (N(1, 1), N(1, 0))


def test_resume_self_ends_a_wait_once_the_view_is_settled() -> None:
    own = Profile(resume="self")
    s = run(own, LONG, Wait(), start(0, 0))
    assert s.queue.waiting
    s = machine.step(s, end(0, 0, "done"))
    # The only unbuilt line is built: the turn goes on with no settle event.
    assert not s.queue.waiting
    assert refused(s, Settle()) == "settle_needs_wait"
    # A wait on a view already settled ends at once.
    assert not machine.step(s, Wait()).queue.waiting
    # SPEC: the turn waits for its settle event.
    s = run(Profile(), LONG, Wait(), start(0, 0), end(0, 0, "done"))
    assert s.queue.waiting
    assert not machine.step(s, Settle()).queue.waiting


def test_empty_reply_fails_the_call_instead_of_ending_the_tries() -> None:
    fails = Profile(empty_reply="fails")
    replies = ["x" * 20, "", "y" * 3]
    # SPEC: the empty second reply ends the tries; the best, cut to NODE 10, is the line.
    assert choose_line("s" * 30, replies, 10, 5, Profile()) == Choice("x" * 10, 2)
    assert choose_line("s" * 30, replies, 10, 5, fails) == Choice(None, 2)
    s = run(fails, LONG, start(0, 0))
    s = machine.step(s, End(N(0, 0), replies=("", "fits")))
    assert machine.text(s, N(0, 0)) is None
    assert s.queue.held == (N(0, 0),)
    assert dict(s.queue.failures) == {N(0, 0): 1}
    # SPEC builds the leaf from its source cut to NODE: "user: " and ten "x".
    spec = run(Profile(), LONG, start(0, 0), End(N(0, 0), replies=("", "fits")))
    assert machine.text(spec, N(0, 0)) == "user: xxxxxxxxxx"


def test_not_shorter_goes_on_keeps_reading_for_a_shorter_reply() -> None:
    on = Profile(not_shorter="goes_on")
    # SPEC stops at the 25-byte follow-up; going on reads the 3-byte fit.
    assert choose_line("s" * 30, ["x" * 20, "y" * 25, "zzz"], 10, 5, Profile()) == Choice(
        "x" * 10, 2
    )
    assert choose_line("s" * 30, ["x" * 20, "y" * 25, "zzz"], 10, 5, on) == Choice("zzz", 3)
    # With no fit, the shortest of all replies read is cut: 15 bytes beat 20 and 20.
    assert choose_line("s" * 30, ["x" * 20, "y" * 20, "w" * 15], 10, 5, on) == Choice("w" * 10, 3)
    # TRIES still bounds the replies read.
    assert choose_line("s" * 30, ["x" * 20, "y" * 25, "zzz"], 10, 2, on) == Choice("x" * 10, 2)
