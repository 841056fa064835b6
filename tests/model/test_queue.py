"""The work queue (SPEC 4): order, JOBS, AHEAD, failures, retries and waits,
and every illegal event refused with the rule it breaks."""

from __future__ import annotations

from model import machine
from model.constants import Constants
from model.events import Event, Message, Retry, Settle, Timeout, Wait
from tests.model.helpers import N, end, fail, refused, start

LONG = Message("user", "x" * 20)  # a 26-byte line: over NODE 16, so it needs a call


def run(constants: Constants, *events: Event) -> machine.State:
    s = machine.initial(constants)
    for event in events:
        s = machine.step(s, event)
    return s


C = Constants(node=16, jobs=2, ahead=2, failures=3)


def test_ahead_and_jobs_bound_the_candidates() -> None:
    s = run(C, LONG, LONG, LONG)
    # Leaf 2 has two unbuilt leaves before it: not within AHEAD 2.
    assert machine.candidates(s) == (N(0, 0), N(0, 1))
    assert refused(s, start(0, 2)) == "ahead_bound"
    s = run(C, LONG, LONG, LONG, start(0, 0), start(0, 1))
    assert machine.candidates(s) == ()
    assert refused(s, start(0, 2)) == "jobs_bound"
    assert refused(s, start(0, 0)) == "one_call_per_node"


def test_a_failed_node_waits_for_the_next_message_or_retry() -> None:
    s = run(C, LONG, LONG, start(0, 0), fail(0, 0))
    assert machine.candidates(s) == (N(0, 1),)
    assert refused(s, start(0, 0)) == "retry_waits"
    assert machine.candidates(machine.step(s, Retry())) == (N(0, 0), N(0, 1))
    assert machine.candidates(machine.step(s, LONG))[:2] == (N(0, 0), N(0, 1))


def test_the_failures_th_failure_builds_the_node_from_its_source_cut() -> None:
    s = run(C, Message("user", "é" * 12), start(0, 0), fail(0, 0), Retry(), start(0, 0))
    s = machine.step(s, fail(0, 0))
    assert machine.text(s, N(0, 0)) is None
    s = run(C, Message("user", "é" * 12), *[start(0, 0), fail(0, 0), Retry()] * 2, start(0, 0))
    s = machine.step(s, fail(0, 0))
    # "user: " (6 bytes) and 5 whole "é" (10 bytes) fit in NODE 16.
    assert machine.text(s, N(0, 0)) == "user: ééééé"
    assert machine.candidates(s) == ()


def test_merges_queue_after_leaves_by_level_and_index() -> None:
    c = Constants(node=16, jobs=8, ahead=8)
    s = run(c, *[LONG] * 5)
    for i in range(4):
        s = machine.step(s, start(0, i))
    for i in (3, 2, 1, 0):
        s = machine.step(s, end(0, i, "ab" * 5))  # two 10-byte halves: 21-byte source
    assert machine.candidates(s) == (N(0, 4), N(1, 0), N(1, 1))
    s = machine.step(s, start(1, 1))
    s = machine.step(s, end(1, 1, "c" * 10))
    s = machine.step(s, start(1, 0))
    s = machine.step(s, end(1, 0, "d" * 10))
    assert machine.candidates(s) == (N(0, 4), N(2, 0))


def test_a_wait_stops_running_merges_and_starts_only_the_views_unbuilt_lines() -> None:
    c = Constants(node=16, jobs=8, ahead=8)
    s = run(c, LONG, LONG, LONG, start(0, 0), start(0, 1))
    s = machine.step(s, end(0, 0, "a" * 10))
    s = machine.step(s, end(0, 1, "b" * 10))
    s = machine.step(s, start(1, 0))
    s = machine.step(s, start(0, 2))
    assert machine.candidates_waiting(s) == ()
    waiting = machine.step(s, Wait())
    assert waiting.queue.running == (N(0, 2),)  # the merge call stopped...
    assert waiting.queue.failures == ()  # ...without counting as a failure
    assert refused(waiting, start(1, 0)) == "need_first"
    assert refused(waiting, end(1, 0, "m")) == "end_needs_running"
    assert refused(waiting, Settle()) == "settle_needs_summaries"
    settled = machine.step(machine.step(waiting, end(0, 2, "c")), Settle())
    assert machine.candidates(settled) == (N(1, 0),)


def test_every_illegal_event_is_refused_with_its_rule() -> None:
    c = Constants(node=16, jobs=1, ahead=8)
    s = run(c, LONG, LONG)
    assert refused(s, Message("robot", "hi")) == "kind"
    assert refused(s, Message("user", "\ud800")) == "utf8"
    assert refused(s, start(0, 2)) == "node_exists"
    assert refused(s, start(2, 0)) == "node_exists"
    assert refused(s, start(1, 0)) == "merge_needs_halves"
    assert refused(s, end(0, 0, "a")) == "end_needs_running"
    assert refused(s, fail(0, 0)) == "fail_needs_running"
    assert refused(s, Settle()) == "settle_needs_wait"
    assert refused(s, Timeout()) == "timeout_needs_wait"
    assert refused(machine.step(s, Wait()), Wait()) == "one_wait"
    assert refused(s, start(0, 1)) == "queue_order"  # JOBS 1: leaf 0 goes first
    s = machine.step(s, start(0, 0))
    assert refused(s, end(0, 0, "")) == "line_fits"
    assert refused(s, end(0, 0, "x" * 17)) == "line_fits"
    assert refused(s, end(0, 0, "\udfff")) == "utf8"
    s = machine.step(s, end(0, 0, "x" * 16))
    assert refused(s, start(0, 0)) == "built_once"


def test_a_timeout_ends_the_wait_unsettled() -> None:
    s = run(C, LONG, Wait(), Timeout())
    assert not s.queue.waiting
    assert not machine.settled(s)
