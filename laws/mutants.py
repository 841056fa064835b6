"""`python -m laws.mutants`: the deliberate breaks of SPEC 9, each applied in a
scratch copy of the project (never in the working tree), then its gate run
there: the laws for a model break, the bridge on the committed corpus for an
engine break, and for a break of the runner itself (bridge/, and the scenario
reader it streams with) the tests that check the runner like an engine:
deliberately wrong engines that must FAIL (tests/cli/test_wrong_engines.py,
tests/bridge/test_purpose.py; MUTATION.md lists which test catches which
break). Each break ends `caught` (by which laws, scenarios or tests),
`MISSED` (its gate passed), or `HARNESS ERROR` (the gate itself failed, or
the break no longer applies to the sources): never counted as caught nor as
missed. Exit 0 when every break is caught, 1 when one is missed, 2 on a
harness error.

`--first-catch` (for `make test`) stops each gate at its first catch: the laws
with `--first-break`, the laws a break should break tried first; the corpus
streamed and stopped at its first FAIL, the scenarios that should fail first;
pytest stopped at its first failure (`-x`), the tests that should fail first.
The full run names everything that catches each break.

The copy holds the sources only, not the engine's C build (build/ is not part
of the project), so an engine break runs as plain Python there. Each gate
is a fork of one server that imported the third-party modules once
(laws/forks.py), not a fresh interpreter. A copy is made once and serves
one break after another, put back as it was made after each (`Copies`)."""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import importlib.util
import itertools
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from laws.forks import Forked, Forks
from scenarios.arguments import jobs_option, positive

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Break:
    """A deliberate break: in `path`, each `old` (which must occur exactly once)
    becomes its `new`. `first`: what should catch it, tried first by
    `--first-catch`: law names for a model break (gate "laws"), scenario globs
    for an engine break (gate "bridge"), pytest test ids for a runner break
    (gate "runner")."""

    name: str
    path: str
    edits: tuple[tuple[str, str], ...]
    gate: str
    first: tuple[str, ...]


SENDING_LOOP = (
    "    for position, given in enumerate(islice(scenario.events, start, None), start=start):\n"
)
"""The loop of bridge/wire/stream.py that sends a scenario's events (from a resumed place on)."""

BREAKS = [
    Break(
        "due measured from the first message",
        "model/due.py",
        (
            ("return nodes.end(nodes.sibling(pair))", "return nodes.first(pair)"),
            ("count_plus_one = bits.increment(count)", "count_plus_one = count"),
        ),
        "laws",
        ("fit_merges_most_due",),
    ),
    Break(
        "due without the shift (T for T + 1)",
        "model/due.py",
        (("count_plus_one = bits.increment(count)", "count_plus_one = count"),),
        "laws",
        ("fit_merges_most_due",),
    ),
    Break(
        "pair levels swapped in the cross comparison",
        "model/due.py",
        (
            (
                "bits.shift(count_plus_one, b.level), bits.shift(pair_end(b), a.level)",
                "bits.shift(count_plus_one, a.level), bits.shift(pair_end(b), b.level)",
            ),
        ),
        "laws",
        ("fit_merges_most_due",),
    ),
    Break(
        "budget of push's length + 1 in push_agrees",
        "model/push.py",
        (("len(stack), order", "len(stack) + 1, order"),),
        "laws",
        ("push_agrees",),
    ),
    Break(
        "merging into an unbuilt parent",
        "model/view.py",
        (("return is_pair(view, k) and built(nodes.parent(view[k]))", "return is_pair(view, k)"),),
        "laws",
        ("fit_merges_built",),
    ),
    Break(
        "ties broken toward the newest pair",
        "model/view.py",
        (("order(count, pair, best)", "not order(count, best, pair)"),),
        "laws",
        ("fit_merges_most_due",),
    ),
    Break(
        "the compaction view merged down to CCEILING after a chat merge",
        "model/cview.py",
        (
            (
                "return further(chat, count, tree, cfloor, profile)",
                "return further(chat, count, tree, cceiling, profile)",
            ),
        ),
        "laws",
        ("cview_follows_chat",),
    ),
    Break(
        "ready merges ordered by (index, level)",
        "model/queue.py",
        (
            (
                "return a.level < b.level or (a.level == b.level and bits.less(a.index, b.index))",
                "return bits.less(a.index, b.index) or (a.index == b.index and a.level < b.level)",
            ),
        ),
        "laws",
        ("queue_order",),
    ),
    Break(
        "the render without its last newline before </chat>",
        "model/render.py",
        (('return f"<chat>\\n{rows}</chat>"', 'return f"<chat>\\n{rows[:-1]}</chat>"'),),
        "laws",
        ("render_bytes",),
    ),
    Break(
        "a leaf allowed to start with AHEAD unbuilt leaves before it",
        "model/queue.py",
        (
            ("queue.unbuilt.index(leaf) < ahead", "queue.unbuilt.index(leaf) <= ahead"),
            ("queue.unbuilt[: constants.ahead]", "queue.unbuilt[: constants.ahead + 1]"),
        ),
        "laws",
        ("ahead_bound",),
    ),
    Break(
        "one call more than JOBS offered",
        "model/queue.py",
        (
            ("room = constants.jobs - jobs_taken(", "room = constants.jobs + 1 - jobs_taken("),
            (
                "jobs_taken(queue, profile) >= constants.jobs",
                "jobs_taken(queue, profile) > constants.jobs",
            ),
        ),
        "laws",
        ("jobs_bound",),
    ),
    Break(
        "the failure cap one failure late",
        "model/machine.py",
        (("failed < state.constants.failures", "failed <= state.constants.failures"),),
        "laws",
        ("fail_cap_builds",),
    ),
    Break(
        "a leaf's context stopping one message short",
        "model/cview.py",
        (
            (
                "return node.index if node.level == 0 else nodes.end(node)",
                "return bits.sub(node.index, bits.ONE) if node.level == 0 and node.index "
                "else nodes.end(node)",
            ),
        ),
        "laws",
        ("context_ends_at_node",),
    ),
    Break(
        "the sawtooth's batch starting at CEILING reached",
        "model/sawtooth.py",
        (("size > ceiling", "size >= ceiling"),),
        "laws",
        ("cview_sawtooth", "message_merges_nothing"),
    ),
    Break(
        "the line chooser going on after a follow-up as long as the best",
        "model/line.py",
        (
            (
                "texts.size(reply) >= texts.size(best)",
                "texts.size(reply) > texts.size(best)",
            ),
        ),
        "laws",
        ("line_stops_when_not_shorter",),
    ),
    Break(
        "trim_lines inert",
        "model/machine.py",
        (("if not p.trim_lines:", "if True:"),),
        "laws",
        ("trim_lines_trims",),
    ),
    Break(
        "kind_words inert",
        "model/machine.py",
        (
            (
                "texts.message_line(state.profile.word(event.kind), event.text)",
                "texts.message_line(event.kind, event.text)",
            ),
        ),
        "laws",
        ("kind_words_lead",),
    ),
    Break(
        "need_first inert",
        "model/queue.py",
        (
            ("if queue.waiting and profile.need_first:", "if queue.waiting:"),
            (
                "if queue.waiting and profile.need_first and not is_line(view, node):",
                "if queue.waiting and not is_line(view, node):",
            ),
            ("    if not need_first:\n        return replace(queue, waiting=True)\n", ""),
        ),
        "laws",
        ("no_need_first_stops_nothing",),
    ),
    Break(
        "failure_cap inert",
        "model/machine.py",
        (
            (
                "if not state.profile.capped or failed < state.constants.failures:",
                "if failed < state.constants.failures:",
            ),
        ),
        "laws",
        ("no_cap_keeps_trying",),
    ),
    Break(
        "calls inert",
        "model/machine.py",
        (
            (
                "if state.profile.self_calls:\n                raise",
                "if False:\n                raise",
            ),
            ("if state.profile.self_calls:\n        while", "if False:\n        while"),
        ),
        "laws",
        ("self_starts_every_candidate",),
    ),
    Break(
        "a declaration without trim_lines read as trimming",
        "model/profile.py",
        (("            **given,\n", '            "trim_lines": True,\n            **given,\n'),),
        "laws",
        ("profile_read_back",),
    ),
    Break(
        "ahead_in_wait inert",
        "model/profile.py",
        (
            (
                'return self.ahead_limit == "bound" and not (waiting and not self.ahead_in_wait)',
                'return self.ahead_limit == "bound"',
            ),
        ),
        "laws",
        ("wait_ignores_ahead",),
    ),
    Break(
        "empty_chat inert",
        "model/render.py",
        (('if profile.empty_chat == "blank_line":', "if False:"),),
        "laws",
        ("empty_chat_shows_blank_line",),
    ),
    Break(
        "kinds inert",
        "model/machine.py",
        (
            ("if event.kind not in state.profile.kinds:", "if event.kind not in KINDS:"),
            (
                "from model.constants import Constants",
                "from model.constants import KINDS, Constants",
            ),
        ),
        "laws",
        ("kinds_refuse_others",),
    ),
    Break(
        "retry inert",
        "model/machine.py",
        (("if state.profile.retry_at_message else state.queue", "if True else state.queue"),),
        "laws",
        ("tick_retry_keeps_held",),
    ),
    Break(
        "held_takes_job inert",
        "model/queue.py",
        (("(len(queue.held) if profile.held_takes_job else 0)", "0"),),
        "laws",
        # held_takes_a_job's CI histories hold no turn where the held node's
        # place decides (its `--only` run missed the break, 6 CPU s, then every
        # law ran up to wait_ignores_ahead's break, 45 CPU s); wait_ignores_ahead
        # alone breaks in its first histories (1 CPU s; with held_takes_a_job
        # beside it, 6).
        ("wait_ignores_ahead",),
    ),
    Break(
        "merge_order inert",
        "model/queue.py",
        (('arrival = profile.merge_order == "ready"', "arrival = False"),),
        "laws",
        ("ready_merges_keep_arrival",),
    ),
    Break(
        "resume inert",
        "model/machine.py",
        (
            (
                "if state.profile.self_resume and state.queue.waiting",
                "if False and state.queue.waiting",
            ),
        ),
        "laws",
        ("self_resume_ends_settled_wait",),
    ),
    Break(
        "empty_reply inert",
        "model/line.py",
        (('if profile.empty_reply == "fails":', "if False:"),),
        "laws",
        ("empty_reply_fails_call",),
    ),
    Break(
        "not_shorter inert",
        "model/line.py",
        (('if profile.not_shorter == "stops":', "if True:"),),
        "laws",
        ("goes_on_past_not_shorter",),
    ),
    Break(
        "retry_waits named before jobs_bound (SPEC 4.1's order swapped)",
        "model/queue.py",
        (
            (
                "    if jobs_taken(queue, profile) >= constants.jobs:\n"
                '        raise Refused("jobs_bound", f"{constants.jobs} calls already run '
                '(or wait to retry)")\n'
                "    if node in queue.held:\n"
                '        raise Refused("retry_waits", f"{name} failed; it waits for the next '
                'message or retry")\n',
                "    if node in queue.held:\n"
                '        raise Refused("retry_waits", f"{name} failed; it waits for the next '
                'message or retry")\n'
                "    if jobs_taken(queue, profile) >= constants.jobs:\n"
                '        raise Refused("jobs_bound", f"{constants.jobs} calls already run '
                '(or wait to retry)")\n',
            ),
        ),
        "laws",
        ("refusal_names_first_rule",),
    ),
    Break(
        "retried inert",
        "model/queue.py",
        (('if profile.retried == "first" and queue.retried:', "if False and queue.retried:"),),
        "laws",
        ("retried_start_first",),
    ),
    Break(
        "zoom_one inert",
        "model/zoom.py",
        (('if profile.zoom_one == "headed" else line', "if False else line"),),
        "laws",
        ("zoom_one_shows_head",),
    ),
    Break(
        "zoom_halves inert",
        "model/zoom.py",
        (('if profile.zoom_halves == "bare":', "if False:"),),
        "laws",
        ("bare_zoom_drops_tags",),
    ),
    Break(
        "zoom_unbuilt inert",
        "model/zoom.py",
        (('if level and profile.zoom_unbuilt == "refused":', "if False:"),),
        "laws",
        ("unbuilt_zoom_refused",),
    ),
    Break(
        "tolerance inert",
        "model/profile.py",
        (("return node_bytes * self.hundredths // 100", "return node_bytes"),),
        "laws",
        ("tolerance_widens_fit",),
    ),
    Break(
        "cut inert",
        "model/line.py",
        (('profile.cut == "word",', "False,"),),
        "laws",
        ("word_cut_drops_last_word",),
    ),
    Break(
        "ellipsis inert",
        "model/line.py",
        (("        profile.ellipsis,\n", '        "",\n'),),
        "laws",
        ("ellipsis_marks_cut",),
    ),
    Break(
        "overlong inert",
        "model/line.py",
        (
            ('    if profile.overlong == "kept":\n        return', "    if False:\n        return"),
            ('if best is not None and profile.overlong == "kept":', "if False:"),
        ),
        "laws",
        ("kept_best_stays_whole",),
    ),
    Break(
        "replies_out inert",
        "model/line.py",
        (('if read < tries and profile.replies_out == "asks":', "if False:"),),
        "laws",
        ("run_out_asks_again",),
    ),
    Break(
        "given_line inert",
        "model/machine.py",
        (("if line is not None and over_line(line, c.node, p):", "if False:"),),
        "laws",
        ("given_line_rechosen",),
    ),
    Break(
        "trim_set inert",
        "model/text.py",
        (
            ("return text.strip(TRIM_SETS[trim_set])", 'return text.strip(TRIM_SETS["unicode"])'),
            ("space = TRIM_SETS[trim_set]", 'space = TRIM_SETS["unicode"]'),
        ),
        "laws",
        ("trim_set_names_whitespace",),
    ),
    Break(
        "free_leaves inert",
        "model/machine.py",
        (
            (
                'if trees.is_free(line, c.node) and state.profile.free_leaves == "at_once":',
                "if trees.is_free(line, c.node):",
            ),
        ),
        "laws",
        ("queued_free_leaf_waits",),
    ),
    Break(
        "flat_lines inert",
        "model/machine.py",
        (("    if p.flat_lines:\n        line = texts.spaced(line)\n", ""),),
        "laws",
        ("flat_lines_spaced",),
    ),
    Break(
        "ahead_limit inert",
        "model/profile.py",
        (('return self.ahead_limit == "bound" and not', "return not"),),
        "laws",
        ("no_ahead_holds_no_leaf",),
    ),
    Break(
        "flat_sizes inert",
        "model/view.py",
        (
            (
                "return texts.flat_size(text) if profile.flat_sizes else texts.size(text)",
                "return texts.size(text)",
            ),
        ),
        "laws",
        ("flat_sizes_counted",),
    ),
    Break(
        "batches inert",
        "model/machine.py",
        (('if state.profile.batches == "messages" or', "if True or"),),
        "laws",
        ("builds_run_batches",),
    ),
    Break(
        "row_sizes inert",
        "model/view.py",
        (("return size + row_head(node) if profile.row_sizes else size", "return size"),),
        "laws",
        ("row_sizes_count_heads",),
    ),
    Break(
        "due measured from the first message, in the engine",
        "impl/view.py",
        (
            (
                "due = (self.count + 1 - first_message) << (top - level)",
                "due = (self.count - first_message) << (top - level)",
            ),
        ),
        "bridge",
        ("random_0*", "late_*"),
    ),
    Break(
        "the engine's batch merging to CEILING instead of FLOOR",
        "impl/planner.py",
        (
            (
                "self.chat.receive(self.constants.ceiling, self.constants.floor)",
                "self.chat.receive(self.constants.ceiling, self.constants.ceiling)",
            ),
        ),
        "bridge",
        ("random_0*", "late_*"),
    ),
    Break(
        "the engine's line chooser going on after a follow-up as long as the best",
        "impl/line.py",
        (
            (
                "self.best is None or size(reply) < size(self.best)",
                "self.best is None or size(reply) <= size(self.best)",
            ),
        ),
        "bridge",
        ("chooser_*",),
    ),
]

WRONG = "tests/cli/test_wrong_engines.py::"
FIELD = WRONG + "test_an_engine_wrong_in_one_field_fails_there"
PURPOSE = "tests/bridge/test_purpose.py::"

RUNNER_BREAKS = [
    Break(
        "the runner comparing texts without their trailing whitespace",
        "bridge/checking/compare.py",
        (
            (
                "a, b = expected.get(name, MISSING), found.get(name, MISSING)",
                "a, b = (v.rstrip() if isinstance(v, str) else v "
                "for v in (expected.get(name, MISSING), found.get(name, MISSING)))",
            ),
        ),
        "runner",
        (
            f"{FIELD}[render-trailing-space]",
            f"{FIELD}[render-final-newline]",
            f"{FIELD}[line-stripped]",
        ),
    ),
    Break(
        "the runner comparing nothing after an event withheld for a lacking capability",
        "bridge/checking/compare.py",
        (
            (
                "result.withheld.add(exchange.position)\n                    continue",
                "result.withheld.add(exchange.position)\n                    break",
            ),
        ),
        "runner",
        (WRONG + "test_events_after_one_withheld_for_a_lacking_capability_are_compared",),
    ),
    Break(
        "a --known-failures name matching every scenario it is a prefix of",
        "bridge/checking/verdict.py",
        (
            (
                "return known.get(verdict.path.name, known.get(verdict.path.stem))",
                "return next((s for n, s in known.items() "
                "if verdict.path.stem.startswith(n)), None)",
            ),
        ),
        "runner",
        (WRONG + "test_known_failures_match_exactly_by_status_and_the_list_never_grows",),
    ),
    Break(
        "a scenario's last line without a newline losing its event",
        "scenarios/format.py",
        (
            (
                "        if not raw:\n            self.close()",
                '        if not raw.endswith(b"\\n"):\n            self.close()',
            ),
        ),
        "runner",
        (WRONG + "test_the_last_event_of_a_file_without_a_final_newline_is_compared",),
    ),
    Break(
        "the runner comparing a refusal as a fact, its rule ignored",
        "bridge/checking/compare.py",
        (('if name == "refused" and not rules:', 'if name == "refused":'),),
        "runner",
        (f"{FIELD}[refused-rule]",),
    ),
    Break(
        "the runner taking an unsupported answer as agreement",
        "bridge/checking/compare.py",
        (
            (
                'result.unsupported = str(answer["unsupported"])\n'
                "            read -= exchange.position is not None\n",
                "return True\n",
            ),
        ),
        "runner",
        (WRONG + "test_an_unsupported_event_is_skipped_never_passed",),
    ),
    Break(
        "the runner taking a prefix of a text as the text",
        "bridge/checking/compare.py",
        (
            (
                'if a != b or (name == "shrinking"',
                "if (a[: len(b)] if isinstance(a, str) and isinstance(b, str) else a) != b or "
                '(name == "shrinking"',
            ),
        ),
        "runner",
        (f"{FIELD}[render-cut]",),
    ),
    Break(
        "the runner reading a lone carriage return as a newline",
        "bridge/checking/compare.py",
        (
            (
                "a, b = expected.get(name, MISSING), found.get(name, MISSING)",
                'a, b = (v.replace("\\r", "\\n") if isinstance(v, str) else v '
                "for v in (expected.get(name, MISSING), found.get(name, MISSING)))",
            ),
        ),
        "runner",
        (f"{FIELD}[render-cr]",),
    ),
    Break(
        "a run with a FAIL exiting 0",
        "bridge/runs/tally.py",
        (
            (
                'if self.counts.get("FAIL") or self.counts.get("UNEXPECTED PASS") or self.short():',
                'if self.counts.get("UNEXPECTED PASS") or self.short():',
            ),
        ),
        "runner",
        (f"{FIELD}[size]",),
    ),
    Break(
        "a run that compared nothing passing",
        "bridge/checking/coverage.py",
        (("return self.compared == 0 and (self.events > 0 or self.ended == 0)", "return False"),),
        "runner",
        (WRONG + "test_a_run_that_compared_nothing_is_red_in_every_report",),
    ),
    Break(
        "the --min-compared floor ignored",
        "bridge/checking/coverage.py",
        (("if self.fraction() < floor:", "if False:"),),
        "runner",
        (WRONG + "test_a_run_below_its_floor_is_red_in_every_report",),
    ),
    Break(
        "a fuzz run that compared nothing, or below its floor, passing",
        "bridge/cli/fuzz.py",
        (("short = fuzzer.coverage().short(args.min_compared)", "short = None"),),
        "runner",
        (WRONG + "test_a_fuzz_run_that_compared_nothing_or_too_little_is_red",),
    ),
    Break(
        "merge-reports judging the shards' sum without their floor",
        "bridge/outputs/merge.py",
        (('floor_of(reports[0][0], merged["min_compared"])', "0.0"),),
        "runner",
        (WRONG + "test_shards_merge_into_the_verdict_of_one_run",),
    ),
    Break(
        "a listed scenario counted as expected whatever its status",
        "bridge/checking/verdict.py",
        (
            (
                "if expected is not None and verdict.status == expected:",
                'if expected is not None and verdict.status != "ok":',
            ),
        ),
        "runner",
        (WRONG + "test_known_failures_match_exactly_by_status_and_the_list_never_grows",),
    ),
    Break(
        "--write-known-failures adding what the list did not hold",
        "bridge/runs/tally.py",
        (("if known is None or listed(verdict, known) == verdict.status:", "if True:"),),
        "runner",
        (WRONG + "test_known_failures_match_exactly_by_status_and_the_list_never_grows",),
    ),
    Break(
        "relative events never sent",
        "bridge/wire/stream.py",
        (
            (
                SENDING_LOOP,
                SENDING_LOOP + "        if is_relative(given):\n            continue\n",
            ),
        ),
        "runner",
        (WRONG + "test_relative_events_are_sent_and_compared",),
    ),
    Break(
        "delivery counting events never sent as delivered",
        "bridge/checking/delivery.py",
        (("tuple(p for p in owed if p not in sent)", "()"),),
        "runner",
        (WRONG + "test_delivery_counts_the_events_never_sent",),
    ),
    Break(
        "an outcome marked end_needs_running held until its call starts (calls: self)",
        "bridge/wire/stream.py",
        (('if given.get("refused") in IDLE:', "if False:"),),
        "runner",
        (
            PURPOSE
            + "test_an_engine_holding_outcomes_under_calls_self_fails_where_it_should_refuse",
        ),
    ),
]
"""Breaks of the runner itself, each caught by the tests that check it like
an engine (the four of issue 33 first)."""

BREAKS += RUNNER_BREAKS

RUNNER_SUITE = ("tests/cli/test_wrong_engines.py", "tests/bridge/test_purpose.py")
"""The runner's own checks: every runner break's gate runs these (with
`--first-catch`, its `first` tests, then these)."""

GATES = ("laws", "bridge", "runner")
CAUGHT, MISSED, HARNESS = "caught", "MISSED", "HARNESS ERROR"

LAW_BROKEN = re.compile(r"^LAW BROKEN: (\w+)$", re.M)
TEST_FAILED = re.compile(r"^FAILED (\S+)", re.M)
TEST_ERROR = re.compile(r"^ERROR (\S+)", re.M)
SCENARIO = re.compile(r"^\[\d+/\d+\] (\S+)\s+(\S+\.jsonl)", re.M)
FIRST_FAIL = re.compile(r"^\[\d+/\d+\] FAIL ")


@dataclass(frozen=True)
class Outcome:
    """What a gate said of a break: its verdict, what caught it, and for a
    break not caught what the gate printed last (or what failed)."""

    verdict: str
    by: tuple[str, ...] = ()
    why: str = ""


@dataclass(frozen=True)
class Gate:
    """What a gate's process did: its exit code (None when it was stopped),
    what it printed, and whether it was stopped at its first catch or out of
    its budget (run_process says which, on its last line)."""

    code: int | None
    output: str
    stopped: bool = False
    timed_out: bool = False


def classify(gate: str, run: Gate) -> Outcome:
    """The verdict on a break from its gate's run. The laws: exit 1 naming
    broken laws is caught, exit 0 naming none is missed. The bridge: FAIL
    scenarios with exit 1 (or a stop at the first FAIL) are caught, exit 0
    with none is missed. The runner's tests: exit 1 naming failed tests is
    caught, exit 0 is missed. Anything else is a harness error: a time-out,
    exit 2, a HARNESS ERROR, a scenario the bridge could not check (FAULT,
    BAD, ERROR), a test that errors outside its assertions, or an exit that
    disagrees with what was printed."""
    tail = run.output[-3000:]
    if run.timed_out:
        return Outcome(HARNESS, why=f"the gate was stopped, out of its budget\n{tail}")
    if gate == "runner":
        caught = tuple(TEST_FAILED.findall(run.output))
        errors = TEST_ERROR.findall(run.output)
        if errors:
            return Outcome(HARNESS, why=f"tests failed outside their checks: {errors}\n{tail}")
    elif gate == "laws":
        caught = tuple(LAW_BROKEN.findall(run.output))
        if run.code == 2 or "HARNESS ERROR" in run.output:
            return Outcome(HARNESS, caught, f"the laws run failed outside every law\n{tail}")
    else:
        seen = SCENARIO.findall(run.output)
        faults = [
            f"{status} {name}" for status, name in seen if status in ("FAULT", "BAD", "ERROR")
        ]
        if faults:
            return Outcome(HARNESS, why=f"the bridge could not check {', '.join(faults)}\n{tail}")
        caught = tuple(name for status, name in seen if status == "FAIL")
        if run.stopped and caught:
            return Outcome(CAUGHT, caught)
    if run.code == 1 and caught:
        return Outcome(CAUGHT, caught)
    if run.code == 0 and not caught:
        return Outcome(MISSED, why=tail)
    return Outcome(HARNESS, caught, f"the gate exited {run.code} naming {len(caught)}\n{tail}")


class Orphaned(Exception):
    """A break's text is no longer in the sources (once)."""


def project_files() -> dict[str, Path]:
    """The project's files (tracked or new, not ignored), each by its name
    in the project, with its bytecode when it has any (every process in a
    copy would compile it again)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    files: dict[str, Path] = {}
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            files[name] = source
            compiled = Path(importlib.util.cache_from_source(str(source)))
            if source.suffix == ".py" and compiled.is_file():
                files[str(compiled.relative_to(ROOT))] = compiled
    return files


def scratch_copy(into: Path) -> Path:
    """The project's files (`project_files`) under `into`."""
    copy = into / "project"
    for name, source in project_files().items():
        put(source, copy / name)
    return copy


Signature = tuple[int, int, int]
"""A file's inode, size and modification time: whether it is the one made."""


def signature(path: str) -> Signature | None:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


@dataclass
class Copy:
    """A scratch copy of the project: where it is, each file made there (by
    its path) with where it came from and its signature, and the folders
    that hold them."""

    root: Path
    made: dict[str, tuple[Path, Signature | None]]
    folders: frozenset[str]


class Copies:
    """Scratch copies of the project under `folder`, one for each break
    running at once, each lent to one break at a time and then put back as
    it was made (`put_back`): making a copy of the project and removing it
    again took 0.05 CPU s, a fifth of the gate of a break caught at once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.idle: queue.SimpleQueue[Copy] = queue.SimpleQueue()
        self.made = itertools.count()

    def make(self) -> Copy:
        root = self.folder / f"copy-{next(self.made)}"
        made: dict[str, tuple[Path, Signature | None]] = {}
        for name, source in project_files().items():
            path = root / name
            put(source, path)
            made[str(path)] = source, signature(str(path))
        folders = {str(parent) for path in made for parent in Path(path).parents}
        return Copy(root, made, frozenset(folders))

    @contextlib.contextmanager
    def lent(self) -> Iterator[Path]:
        try:
            copy = self.idle.get_nowait()
        except queue.Empty:
            copy = self.make()
        try:
            yield copy.root
        finally:
            put_back(copy)
            self.idle.put(copy)


def put_back(copy: Copy) -> None:
    """The copy as it was made, after a break and its gate: each file made
    there that is gone or no longer the one made (the broken module) made
    again, with the bytecode of its module compiled since removed; anything
    else written there removed, but for the bytecode Python and pytest
    compiled of modules left as made (each checked against its source's
    time and size when loaded)."""
    stale: list[str] = []
    for path, (source, made) in copy.made.items():
        if signature(path) != made:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            put(source, Path(path))
            copy.made[path] = source, signature(path)
            folder, name = os.path.split(path)
            if name.endswith(".py"):
                stale.append(os.path.join(folder, "__pycache__", name[:-2]))
    for folder, dirs, files in os.walk(copy.root):
        for name in list(dirs):
            path = os.path.join(folder, name)
            if path not in copy.folders and name != "__pycache__":
                shutil.rmtree(path)
                dirs.remove(name)
        compiled = os.path.basename(folder) == "__pycache__"
        for name in files:
            path = os.path.join(folder, name)
            if path in copy.made:
                continue
            if not (compiled and name.endswith(".pyc")) or path.startswith(tuple(stale)):
                os.unlink(path)


def put(source: Path, to: Path) -> None:
    """`source` at `to`: a hard link (nothing in a scratch copy is written in
    place: `apply` writes a broken module anew, Python replaces bytecode),
    else, across file systems, a copy."""
    to.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, to)
    except OSError:
        shutil.copy2(source, to)


def applied(text: str, mutation: Break) -> str:
    """`text` with the break's edits made; Orphaned when an edit's text does
    not occur exactly once."""
    for old, new in mutation.edits:
        if text.count(old) != 1:
            raise Orphaned(
                f"{mutation.path} holds {old!r} {text.count(old)} times, not once: "
                f"update the break {mutation.name!r} in laws/mutants.py"
            )
        text = text.replace(old, new)
    return text


def apply(copy: Path, mutation: Break) -> None:
    path = copy / mutation.path
    broken = applied(path.read_text(encoding="utf-8"), mutation)
    path.unlink()  # a link to the project's own file, never written through
    path.write_text(broken, encoding="utf-8")
    Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)


STALL = 600.0
"""Wall seconds a gate may use no CPU at all before it counts as hung."""


def group_cpu(group: int) -> float | None:
    """CPU seconds used so far by the processes of process group `group`,
    with the children they have waited for (Linux's /proc); None without
    /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    ticks = 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        # After the command's name: state, ppid, pgrp, ..., utime, stime, cutime, cstime.
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[2]) == group:
            ticks += sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def run_process(
    command: list[str],
    copy: Path,
    seconds: float,
    stop: bool,
    forks: Forks | None = None,
    **env: str,
) -> Gate:
    """Run a gate's command in the copy (with `env` beside the copy's own), in
    its own process group (a fork of `forks` for a `-m MODULE` command, else
    a fresh interpreter), reading what it prints as it comes; with `stop`,
    kill the group at the first FAIL line. The group is killed too when it has used `seconds` of CPU
    (summed over its processes: a loaded machine gives it the same budget as
    a quiet one), or when it used none for STALL wall seconds (hung);
    without /proc, after `seconds` of wall time."""
    environment = dict(
        os.environ, PYTHONPATH=str(copy), PYTHONHASHSEED="0", OPTCHAT_PURE="1", **env
    )
    process: subprocess.Popen[str] | Forked
    if forks is not None and command[0] == "-m":
        process = forks.start(command, copy, environment)
    else:
        process = subprocess.Popen(
            [sys.executable, *command],
            cwd=copy,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    expired: list[str] = []
    ended = threading.Event()

    def kill() -> None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def watch() -> None:
        began = progressed = time.monotonic()
        used = 0.0
        while not ended.wait(0.5):
            now, cpu = time.monotonic(), group_cpu(process.pid)
            if cpu is None and now - began > seconds:
                expired.append(f"the gate ran past {seconds:g} s (no /proc to count its CPU)")
            elif cpu is not None and cpu > seconds:
                expired.append(f"the gate used more than {seconds:g} CPU seconds")
            elif cpu is not None and cpu > used:
                used, progressed = cpu, now
            elif now - progressed > STALL:
                expired.append(f"the gate used no CPU for {STALL:g} s: hung")
            if expired:
                kill()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    lines: list[str] = []
    stopped = False
    assert process.stdout is not None
    try:
        for line in process.stdout:
            lines.append(line)
            if stop and FIRST_FAIL.match(line):
                stopped = True
                kill()
                break
        process.stdout.close()
        code = process.wait()
    finally:
        ended.set()
        watcher.join()
    kill()  # a worker the gate left behind
    lines.extend(f"\nmutants: {why}\n" for why in expired)
    return Gate(None if stopped else code, "".join(lines), stopped, bool(expired))


def ordered_scenarios(copy: Path, first: tuple[str, ...]) -> list[str]:
    """The corpus's scenarios, those matching a `first` glob first."""
    paths = sorted((copy / "scenarios" / "corpus").glob("*.jsonl"))
    early = [p for p in paths if any(fnmatch.fnmatch(p.name, g) for g in first)]
    return [str(p) for p in early + [p for p in paths if p not in early]]


def attempts(copy: Path, mutation: Break, profile: str, first_catch: bool) -> list[list[str]]:
    """The gate's commands, tried in turn while the break is missed: under
    `first_catch` the laws it should break, then every law."""
    if mutation.gate == "bridge":
        corpus = ["-m", "bridge", "corpus", "--engine", "impl", "--jobs", "1"]
        return [corpus + ordered_scenarios(copy, mutation.first) if first_catch else corpus]
    if mutation.gate == "runner":
        # Without conftest.py and Hypothesis's plugin: they load what other
        # tests need (the packaging kits, Hypothesis), 1.5 CPU s these do without.
        tests = ["-m", "pytest", "-q", "-rfE", "--noconftest", "-p", "no:cacheprovider"]
        tests += ["-p", "no:randomly", "-p", "no:xdist", "-p", "no:hypothesispytest"]
        if not first_catch:
            return [[*tests, *RUNNER_SUITE]]
        return [[*tests, "-x", *mutation.first], [*tests, "-x", *RUNNER_SUITE]]
    laws = ["-m", "laws", "--profile", profile]
    if not first_catch:
        # Every law that catches the break is named; shrinking each would take an hour.
        return [[*laws, "--no-shrink"]]
    laws.append("--first-break")  # which also shrinks nothing
    return [[*laws, "--only", *mutation.first], laws]


@dataclass(frozen=True)
class Result:
    mutation: Break
    outcome: Outcome
    seconds: float


def run_break(
    mutation: Break,
    profile: str,
    first_catch: bool,
    timeout: float,
    forks: Forks | None = None,
    copies: Copies | None = None,
) -> Result:
    """Plant the break in a scratch copy (one of `copies`, when given, else
    one of its own) and run its gate there (as forks of `forks`, when
    given)."""
    began = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if copies is None:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="optchat-mutant-"))
            copies = Copies(Path(scratch))
        copy = stack.enter_context(copies.lent())
        outcome = gated(copy, mutation, profile, first_catch, timeout, forks)
    return Result(mutation, outcome, time.perf_counter() - began)


def gated(
    copy: Path,
    mutation: Break,
    profile: str,
    first_catch: bool,
    timeout: float,
    forks: Forks | None,
) -> Outcome:
    """The break planted in `copy` and judged by its gate there."""
    try:
        apply(copy, mutation)
    except Orphaned as error:
        return Outcome(HARNESS, why=str(error))
    outcome = Outcome(MISSED)
    for command in attempts(copy, mutation, profile, first_catch):
        stop = first_catch and mutation.gate == "bridge"
        gate = run_process(command, copy, timeout, stop, forks)
        outcome = classify(mutation.gate, gate)
        if outcome.verdict != MISSED:
            break
    return outcome


def shown(names: tuple[str, ...], most: int) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def report_line(result: Result) -> str:
    outcome = result.outcome
    line = f"{outcome.verdict:<13} {result.mutation.name} ({result.seconds:.0f} s)"
    if outcome.verdict == CAUGHT:
        return f"{line} by {shown(outcome.by, 6)}"
    return f"{line}\n    " + outcome.why.replace("\n", "\n    ")


def table(results: list[Result]) -> str:
    width = max(len(r.mutation.name) for r in results)
    rows = [f"{'break':<{width}}  {'gate':<6}  {'outcome':<13}  {'s':>4}  caught by"]
    for r in results:
        by = shown(r.outcome.by, 8 if r.mutation.gate == "bridge" else 99)
        rows.append(
            f"{r.mutation.name:<{width}}  {r.mutation.gate:<6}  {r.outcome.verdict:<13}  "
            f"{r.seconds:4.0f}  {by}"
        )
    return "\n".join(rows)


def run_all(chosen: list[Break], args: argparse.Namespace) -> list[Result]:
    """Run the breaks `args.jobs` at a time, a line for each as it ends and,
    every 10 s without one, which are still running."""
    results: list[Result] = []
    began: dict[str, float] = {}

    def one(mutation: Break) -> Result:
        began[mutation.name] = time.perf_counter()
        return run_break(mutation, args.profile, args.first_catch, args.timeout, forks, copies)

    forks = Forks()
    with (
        tempfile.TemporaryDirectory(prefix="optchat-mutants-") as scratch,
        contextlib.closing(forks),
        ThreadPoolExecutor(args.jobs) as pool,
    ):
        copies = Copies(Path(scratch))
        running: set[Future[Result]] = {pool.submit(one, m) for m in chosen}
        while running:
            done, running = wait(running, timeout=10, return_when=FIRST_COMPLETED)
            for future in done:
                results.append(future.result())
                print(report_line(results[-1]), flush=True)
            if not done:
                now = time.perf_counter()
                names = [m.name for m in chosen if m.name in began]
                late = [n for n in names if n not in {r.mutation.name for r in results}]
                print(
                    "  ... running: " + "; ".join(f"{n} ({now - began[n]:.0f} s)" for n in late),
                    file=sys.stderr,
                    flush=True,
                )
    order = {m.name: k for k, m in enumerate(chosen)}
    return sorted(results, key=lambda r: order[r.mutation.name])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m laws.mutants", description=__doc__)
    parser.add_argument("--profile", choices=("ci", "deep"), default="ci")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="breaks whose name holds TEXT")
    parser.add_argument("--first-catch", action="store_true", help="stop each gate at a catch")
    jobs_option(parser, "breaks run", default=2)
    parser.add_argument(
        "--timeout",
        type=positive,
        default=1800,
        help="CPU seconds per gate run, summed over its processes (default 1800)",
    )
    args = parser.parse_args(argv)
    chosen = [b for b in BREAKS if args.only is None or any(o in b.name for o in args.only)]
    if not chosen:
        parser.error(f"no break's name holds {' or '.join(map(repr, args.only))}")
    began = time.perf_counter()
    results = run_all(chosen, args)
    print(f"\n{table(results)}\n")
    missed = [r.mutation.name for r in results if r.outcome.verdict == MISSED]
    errors = [r.mutation.name for r in results if r.outcome.verdict == HARNESS]
    caught = len(results) - len(missed) - len(errors)
    summary = f"{caught} of {len(results)} deliberate breaks caught"
    if missed:
        summary += f"; MISSED: {'; '.join(missed)}"
    if errors:
        summary += f"; HARNESS ERROR: {'; '.join(errors)}"
    print(f"{summary} ({time.perf_counter() - began:.0f} s)")
    return 2 if errors else 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
