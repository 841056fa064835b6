"""The engine profile's policies (SPEC 10), each with values worked by hand
from SPEC's words: what changes under the option, and that SPEC's rule
stands without it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model import bits, machine
from model.constants import Constants
from model.events import End, Event, Message, Retry, Settle, Timeout, Wait, Zoom
from model.line import Choice, choose_line
from model.profile import TRIM_SETS, Profile, from_options, options
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


# The options of SPEC 10 for the last differences of the outside engines
# (issue 35), each with SPEC 10's worked example.


def test_retried_first_puts_a_node_let_go_before_the_leaves() -> None:
    c = Constants(node=16, jobs=1)
    merge_failed = (
        Message("user", "x" * 20),
        Message("user", "y" * 20),
        start(0, 0),
        end(0, 0, "a" * 10),
        start(0, 1),
        end(0, 1, "b" * 10),
        start(1, 0),
        fail(1, 0),
    )
    third = Message("user", "z" * 20)
    assert machine.candidates(run(Profile(), *merge_failed, third, constants=c)) == (N(0, 2),)
    first = run(Profile(retried="first"), *merge_failed, third, constants=c)
    assert machine.candidates(first) == (N(1, 0),)
    # Until it starts: once started it is an ordinary node again.
    assert machine.step(first, start(1, 0)).queue.retried == ()
    # Under `retry: tick` the message does not let it go: the leaf comes first.
    tick = Profile(retried="first", retry="tick")
    assert machine.candidates(run(tick, *merge_failed, third, constants=c)) == (N(0, 2),)
    after_tick = run(tick, *merge_failed, third, Retry(), constants=c)
    assert machine.candidates(after_tick) == (N(1, 0),)


def test_nodes_let_go_together_come_in_the_order_they_failed() -> None:
    c = Constants(node=16, jobs=3, ahead=3)
    s = run(Profile(retried="first"), LONG, LONG, LONG, constants=c)
    for event in (start(0, 0), start(0, 1), start(0, 2), fail(0, 2), fail(0, 0), Retry()):
        s = machine.step(s, event)
    # 0+2 failed first, then 0+0 (0+1 still runs); SPEC offers the oldest leaf first.
    assert machine.candidates(s) == (N(0, 2), N(0, 0))
    assert machine.candidates(replace(s, profile=Profile())) == (N(0, 0), N(0, 2))


def zooms(profile: Profile, second: str) -> tuple[str, str]:
    s = run(profile, Message("user", "hi"), Message("unii", second))
    return machine.zoom(s, bits.ZERO, bits.ONE), machine.zoom(s, bits.ZERO, bits.from_int(2))


def test_the_zoom_options_shape_zoom_as_spec_10_s_example() -> None:
    assert zooms(Profile(), "yo") == ("user: hi", "<chat>\n0+1|user: hi\n1+1|unii: yo\n</chat>")
    shaped = Profile(zoom_one="headed", zoom_halves="bare")
    assert zooms(shaped, "yo") == ("0+0|user: hi", "0+1|user: hi\n1+1|unii: yo")
    unbuilt = "1+1|(not summarized yet: zoom it)"
    assert zooms(shaped, "y" * 20)[1] == f"0+1|user: hi\n{unbuilt}"
    assert zooms(Profile(), "y" * 20)[1] == f"<chat>\n0+1|user: hi\n{unbuilt}\n</chat>"
    s = run(Profile(zoom_unbuilt="refused"), Message("user", "hi"), Message("unii", "y" * 20))
    assert refused(s, Zoom(bits.ZERO, bits.from_int(2))) == "zoom"
    assert machine.zoom(s, bits.ONE, bits.ONE) == "unii: " + "y" * 20  # one message: never


def test_tolerance_cut_and_ellipsis_as_spec_10_s_example() -> None:
    reply = ["the quick brown fox jumps over"]
    assert choose_line("s" * 40, reply, 16, 1, Profile()) == Choice("the quick brown ", 1)
    js = Profile(tolerance=1.25, cut="word", ellipsis="…")
    assert js.line_limit(16) == 20 and js.line_limit(512) == 640
    assert choose_line("s" * 40, reply, 16, 1, js) == Choice("the quick brown…", 1)
    assert choose_line("s" * 40, ["x" * 18], 16, 1, js) == Choice("x" * 18, 1)
    # A given line up to LINE is installed; one byte more is refused as line_fits.
    s = run(js, LONG, start(0, 0))
    assert machine.text(machine.step(s, end(0, 0, "x" * 20)), N(0, 0)) == "x" * 20
    assert refused(s, end(0, 0, "x" * 21)) == "line_fits"
    # The failure cap still cuts the source to NODE, at a character, with no ellipsis.
    capped = run(js, LONG, start(0, 0), fail(0, 0), Retry(), start(0, 0), fail(0, 0), Retry())
    capped = machine.step(machine.step(capped, start(0, 0)), fail(0, 0))
    assert machine.text(capped, N(0, 0)) == "user: " + "x" * 10


def test_the_word_cut_keeps_a_head_with_no_white_space_after_its_first_character() -> None:
    word = Profile(cut="word")
    assert choose_line("s" * 40, ["abcdefghijklmnopqrstu"], 16, 1, word).line == "abcdefghijklmnop"
    assert choose_line("s" * 40, [" " * 3 + "x" * 30], 16, 1, word).line == "x" * 16
    # The source, cut with no reply, may be all white space where it is cut: it stays cut.
    assert choose_line(" " * 20 + "x", [""], 16, 1, word).line == " " * 16


def test_overlong_kept_and_replies_out_asks_as_spec_10_s_example() -> None:
    c = Constants(node=10, tries=3, jobs=2, ahead=2)
    source = Message("user", "x" * 24)  # a 30-byte line
    replies = End(N(0, 0), replies=("a" * 20, "b" * 15))
    spec = run(Profile(), source, start(0, 0), replies, constants=c)
    assert machine.text(spec, N(0, 0)) == "b" * 10
    rust = Profile(overlong="kept", replies_out="asks", empty_reply="fails", not_shorter="goes_on")
    asking = run(rust, source, start(0, 0), replies, constants=c)
    assert machine.text(asking, N(0, 0)) is None
    assert asking.queue.running == (N(0, 0),) and asking.queue.failures == ()
    done = machine.step(asking, End(N(0, 0), replies=("c" * 12,)))
    assert machine.text(done, N(0, 0)) == "c" * 12
    # A given line of any length is installed under `kept`; an empty one is refused.
    s = run(Profile(overlong="kept"), source, start(0, 0), constants=c)
    assert machine.text(machine.step(s, end(0, 0, "d" * 99)), N(0, 0)) == "d" * 99
    assert refused(s, end(0, 0, "")) == "line_fits"
    # A call that asks on forgets what it read once it fails.
    failed = machine.step(asking, fail(0, 0))
    assert failed.queue.asked == ()


def test_given_line_as_spec_10_s_example() -> None:
    """SPEC 10 `given_line`: a given line of 14 bytes at NODE 10 and TRIES 3.
    SPEC refuses it (`overlong: kept` installs it whole); under `reply` with
    `replies_out: asks` the call asks on and the next end's replies end the
    tries, the shortest cut; under `reply` alone, or `cut`, it is cut at once.
    A given line that fits is installed as it is under every value."""
    c = Constants(node=10, tries=3, jobs=2, ahead=2)
    source = Message("user", "x" * 24)  # a 30-byte line
    given = end(0, 0, "abcdefghijklmn")
    assert refused(run(Profile(), source, start(0, 0), constants=c), given) == "line_fits"
    kept = run(Profile(overlong="kept"), source, start(0, 0), given, constants=c)
    assert machine.text(kept, N(0, 0)) == "abcdefghijklmn"
    asking = run(
        Profile(given_line="reply", replies_out="asks"), source, start(0, 0), given, constants=c
    )
    assert machine.text(asking, N(0, 0)) is None and asking.queue.running == (N(0, 0),)
    assert asking.queue.asked == ((N(0, 0), ("abcdefghijklmn",)),)
    done = machine.step(asking, End(N(0, 0), replies=("abcdefghijkl", "abcdefghijklm")))
    assert machine.text(done, N(0, 0)) == "abcdefghij"
    for profile in (Profile(given_line="reply"), Profile(given_line="cut")):
        assert machine.text(run(profile, source, start(0, 0), given, constants=c), N(0, 0)) == (
            "abcdefghij"
        )
        fits = run(profile, source, start(0, 0), end(0, 0, " short "), constants=c)
        assert machine.text(fits, N(0, 0)) == " short "
    worded = Profile(given_line="cut", cut="word", ellipsis="…", tolerance=1.25)
    s = run(worded, LONG, start(0, 0))
    cut = machine.step(s, end(0, 0, "the quick brown fox jumps over"))
    assert machine.text(cut, N(0, 0)) == "the quick brown…"


def test_the_trim_set_as_spec_10_s_example() -> None:
    def line(reply: str, trim_set: str) -> str | None:
        return choose_line("s" * 30, [reply], 10, 1, Profile(trim_set=trim_set)).line

    assert [line("fine\u0085", s) for s in ("unicode", "javascript")] == ["fine", "fine\u0085"]
    assert [line("fine\ufeff", s) for s in ("unicode", "javascript")] == ["fine\ufeff", "fine"]
    assert [line("fine\x0b", s) for s in TRIM_SETS] == ["fine", "fine", "fine\x0b"]
    assert [line("abc\x1f", s) for s in TRIM_SETS] == ["abc\x1f"] * 3
    trimmed = run(Profile(trim_lines=True, trim_set="ascii"), LONG, start(0, 0))
    assert machine.text(machine.step(trimmed, end(0, 0, " a\xa0\n")), N(0, 0)) == "a\xa0"


def test_the_new_options_read_back_and_refuse_bad_values() -> None:
    every = {
        "retried": "first",
        "zoom_one": "headed",
        "zoom_halves": "bare",
        "zoom_unbuilt": "refused",
        "tolerance": 1.25,
        "cut": "word",
        "ellipsis": "…",
        "overlong": "kept",
        "replies_out": "asks",
        "trim_set": "javascript",
    }
    profile = from_options(every)
    assert {name: options(profile)[name] for name in every} == every
    assert from_options({"tolerance": 2}).tolerance == 2.0
    for bad in (
        {"tolerance": True},
        {"tolerance": "1.25"},
        {"tolerance": 0.5},
        {"tolerance": 1.001},
        {"ellipsis": 3},
        {"ellipsis": "...."},
        {"trim_set": "python"},
    ):
        with pytest.raises(ValueError):
            from_options(bad)


def test_free_leaves_queued_as_spec_10_s_example() -> None:
    c = Constants(node=16, jobs=1, ahead=1)
    events = (Message("user", "x" * 24), Message("user", "hi"))  # lines of 30 and 8 bytes
    spec = run(Profile(), *events, constants=c)
    assert machine.render(spec).splitlines()[2] == "1+1|user: hi"
    assert machine.candidates(spec) == (N(0, 0),)
    queued = run(Profile(free_leaves="queued"), *events, constants=c)
    assert machine.render(queued).splitlines()[2] == "1+1|(not summarized yet: zoom it)"
    assert machine.size(queued) == 29 + 29
    assert machine.candidates(queued) == (N(0, 0),)
    assert refused(queued, start(0, 1)) == "ahead_bound"
    done = machine.step(machine.step(queued, start(0, 0)), end(0, 0, "ten bytes."))
    assert machine.text(done, N(0, 1)) == "user: hi" and done.started == ()
    # The merge's source is 19 bytes: it needs a call, and is offered.
    assert machine.candidates(done) == (N(1, 0),)
    # With AHEAD 2, the leaf waits for the place of JOBS 0+1's call holds.
    wide = Constants(node=16, jobs=1, ahead=2)
    held = run(Profile(free_leaves="queued"), events[0], start(0, 0), events[1], constants=wide)
    assert machine.text(held, N(0, 1)) is None and machine.candidates(held) == ()
    freed = machine.step(held, fail(0, 0))
    assert machine.text(freed, N(0, 1)) == "user: hi"
    assert machine.text(run(Profile(), events[0], start(0, 0), events[1], constants=wide), N(0, 1))


def test_a_free_leaf_the_queue_offers_may_end_a_wait() -> None:
    """Under `free_leaves: queued` a free leaf is built within the event
    after which the queue offers it, before the engine starts calls under
    `calls: self`; under `resume: self` a wait it settles ends then."""
    p = Profile(free_leaves="queued", calls="self", resume="self")
    c = Constants(node=16, jobs=1, ahead=1)
    s = run(p, Message("user", "x" * 24), Message("user", "hi"), Wait(), constants=c)
    assert s.queue.running == (N(0, 0),) and s.queue.waiting
    s = machine.step(s, end(0, 0, "ten bytes."))
    assert machine.text(s, N(0, 1)) == "user: hi" and not s.queue.waiting
    # The wait ended before the engine started calls: the merge it held back starts.
    assert s.started == (N(1, 0),)


def test_flat_lines_as_spec_10_s_example() -> None:
    events = (LONG, start(0, 0), end(0, 0, "a\r\nb"))
    spec, flat = run(Profile(), *events), run(Profile(flat_lines=True), *events)
    assert machine.text(spec, N(0, 0)) == "a\r\nb" and machine.text(flat, N(0, 0)) == "a  b"
    assert machine.render(spec) == "<chat>\n0+1|a b\n</chat>"
    assert machine.render(flat) == "<chat>\n0+1|a  b\n</chat>"
    assert machine.size(spec) == machine.size(flat) == 4
    # Under trim_lines too: the ends are white space either way.
    trimmed = run(
        Profile(flat_lines=True, trim_lines=True), LONG, start(0, 0), end(0, 0, "\na\nb\r\n")
    )
    assert machine.text(trimmed, N(0, 0)) == "a b"


def test_ahead_limit_none_as_spec_10_s_example() -> None:
    c = Constants(node=16, jobs=2, ahead=1)
    spec = run(Profile(), LONG, LONG, constants=c)
    assert machine.candidates(spec) == (N(0, 0),)
    assert refused(spec, start(0, 1)) == "ahead_bound"
    none = run(Profile(ahead_limit="none"), LONG, LONG, constants=c)
    assert machine.candidates(none) == (N(0, 0), N(0, 1))
    assert machine.step(none, start(0, 1)).queue.running == (N(0, 1),)


def test_flat_sizes_as_spec_10_s_example() -> None:
    small = replace(C, node=32, ceiling=18, floor=10)
    events = (Message("user", "a\r\n\r\nb"), Message("user", "hi"))
    spec = run(Profile(), events[0], constants=small)
    flat = run(Profile(flat_sizes=True), events[0], constants=small)
    assert machine.render(spec) == machine.render(flat) == "<chat>\n0+1|user: a  b\n</chat>"
    assert (machine.size(spec), machine.size(flat)) == (12, 9)
    spec, flat = machine.step(spec, events[1]), machine.step(flat, events[1])
    # SPEC: 12 + 8 bytes, over CEILING 18: the batch merges into the free 0+2.
    assert machine.merges(spec) == (N(1, 0),) and machine.size(spec) == 21
    # flat_sizes: 9 + 8 = 17 bytes, no batch.
    assert machine.merges(flat) == () and machine.size(flat) == 17
    assert machine.view(flat) == (N(0, 0), N(0, 1)) and not machine.shrinking(flat)


def test_batches_at_builds_as_spec_10_s_example() -> None:
    small = replace(C, ceiling=50, floor=15)
    events = (LONG, LONG, start(0, 0), start(0, 1), end(0, 0, "a" * 10), end(0, 1, "b" * 10))
    spec = run(Profile(), *events, constants=small)
    builds = run(Profile(batches="builds"), *events, constants=small)
    for state in (spec, builds):
        # Two placeholders over CEILING, no pair mergeable: shrinking; the
        # leaves' ends (a batch that merges nothing under builds) leave it so.
        assert machine.shrinking(state) and machine.size(state) == 20
        assert machine.candidates(state) == (N(1, 0),)
    spec, builds = (
        machine.step(machine.step(s, start(1, 0)), end(1, 0, "ab")) for s in (spec, builds)
    )
    assert machine.view(spec) == (N(0, 0), N(0, 1)) and machine.shrinking(spec)
    assert machine.merges(spec) == ()
    assert machine.view(builds) == (N(1, 0),) and not machine.shrinking(builds)
    assert machine.merges(builds) == (N(1, 0),) and machine.size(builds) == 2
    assert machine.compaction_view(builds) == (N(1, 0),)
    # SPEC's next message merges them there.
    spec = machine.step(spec, Message("user", "hi"))
    assert machine.merges(spec) == (N(1, 0),)


def test_row_sizes_as_spec_10_s_example() -> None:
    small = replace(C, node=512, ceiling=20, floor=10)
    events = (Message("user", "hi"), Message("unii", "yo"))
    spec = run(Profile(), *events, constants=small)
    rows = run(Profile(row_sizes=True), *events, constants=small)
    # Each row: `0+1|` (4 bytes), the 8-byte line, a newline.
    assert machine.size(spec) == 16 and machine.merges(spec) == ()
    assert machine.merges(rows) == (N(1, 0),) and machine.view(rows) == (N(1, 0),)
    assert machine.size(rows) == len("0+2|user: hi\nunii: yo\n") == 22
    assert machine.shrinking(rows)
    # With flat_sizes too, the merged text's line break is one byte either way.
    both = run(Profile(row_sizes=True, flat_sizes=True), *events, constants=small)
    assert machine.size(both) == 22
