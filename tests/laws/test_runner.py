"""The laws' machinery: shrunk counterexamples that replay, the lock, the counter."""

from __future__ import annotations

import dataclasses
import json
import signal
import time
from pathlib import Path

import pytest
from hypothesis.strategies._internal.core import DataObject

import laws.__main__ as laws_main
from bridge.wire.inprocess import model_event
from laws import history, lock
from laws.all import all_laws
from laws.history import Tally, Verdicts, check_step_laws, merged
from laws.line.cases import Case
from laws.line.cases import check as line_check
from laws.push.counter import stack
from laws.registry import PROFILES, Broken, Held, Law, Step
from model import machine, push
from model.constants import Constants
from model.events import Event, Message, Retry, Wait
from model.profile import Profile
from scenarios import format as scenario_format

SMALL = dataclasses.replace(PROFILES["ci"], histories=60, steps=40)
SHORT = dataclasses.replace(SMALL, steps=20, line_examples=100)
"""SMALL with histories of at most 20 events and 100 reply lists: for the
tests whose counterexample is a few events (a wait, three messages) or a
few replies, where shrinking one found among 40 events cost most of them,
and for those that count histories or draws, not events. Still long
enough that the first history found is not already the shrunk one (with
shrinking off, every test that asserts a shrunk history fails)."""


def three_lines_at_most(step: Step) -> None:
    """A deliberately false law: the view never has more than two lines."""
    assert len(step.after.chat.view) <= 2, "the view has three lines"


def test_a_broken_law_gives_a_shrunk_history_that_replays(tmp_path: Path) -> None:
    law = Law("three_lines_at_most", "view", "step", three_lines_at_most)
    verdicts = check_step_laws([law], SHORT, tmp_path)
    assert verdicts.harness is None
    broken = verdicts.results["three_lines_at_most"]
    assert isinstance(broken, Broken)
    assert "the view has three lines" in broken.counterexample
    scenario = scenario_format.read(Path(broken.scenario))
    # Shrunk: three messages are the fewest events that give a view three lines.
    assert [e["event"] for e in scenario.events] == ["message"] * 3
    state = machine.initial(Constants(**scenario.constants))
    for position, event in enumerate(scenario.events):
        state = machine.step(state, model_event(event, position))
    with pytest.raises(AssertionError):
        three_lines_at_most(Step(state, Retry(), state))


def test_a_true_law_holds_with_its_strength(tmp_path: Path) -> None:
    law = next(law for law in all_laws() if law.name == "view_covers")
    verdicts = check_step_laws([law], SHORT, tmp_path)
    assert isinstance(verdicts.results["view_covers"], Held)
    assert verdicts.tally.histories >= SHORT.histories


def test_histories_say_how_far_they_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long run of the step laws (the deep profile's takes minutes) says,
    while it draws, how many histories and events it has checked."""
    monkeypatch.setattr(history, "HEARTBEAT", 0.0)
    said: list[str] = []
    law = next(law for law in all_laws() if law.name == "view_covers")
    verdicts = check_step_laws([law], SHORT, tmp_path, said.append)
    assert isinstance(verdicts.results["view_covers"], Held)
    counts = [int(line.split()[1]) for line in said if " drawn, 60 asked for " in line]
    assert said[0] == "histories: 1 step laws, up to 60 histories"
    assert len(counts) >= SHORT.histories - 1 and counts == sorted(counts)
    assert counts[-1] == verdicts.tally.histories - 1
    assert verdicts.tally.searching >= sum(verdicts.tally.seconds.values()) > 0


def test_a_long_check_law_says_it_is_still_running(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(laws_main, "HEARTBEAT", 0.02)
    with laws_main.ticking("bits_agree"):
        time.sleep(0.2)
    said = capsys.readouterr().err.splitlines()
    assert len(said) >= 3
    assert all(line.startswith("  ... bits_agree: still checking (") for line in said)
    time.sleep(0.1)
    assert capsys.readouterr().err == "", "the ticker went on after the law"


def test_the_lock_names_a_changed_law(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    laws = all_laws()
    monkeypatch.setattr(lock, "LOCK", tmp_path / "LAWS.lock")
    assert lock.changes(laws) == [
        "LAWS.lock is missing; if the change is on purpose, run `make relock` and commit LAWS.lock"
    ]
    lock.relock(laws)
    assert lock.changes(laws) == []
    table = json.loads(lock.LOCK.read_text())
    table["view_covers"] = "0" * 64
    lock.LOCK.write_text(json.dumps(table))
    assert [c.split(" changed")[0] for c in lock.changes(laws)] == ["law view_covers"]


def test_the_committed_lock_matches_the_laws() -> None:
    assert lock.changes(all_laws()) == []


def spec_8_laws() -> list[str]:
    """The first cell of every law table row in SPEC.md section 8."""
    text = (Path(__file__).resolve().parents[2] / "SPEC.md").read_text()
    section = text.split("\n## 8", 1)[1].split("\n## 9", 1)[0]
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")]
    return [name for name in rows if name not in ("law", "---")]


def test_every_law_of_spec_8_is_there_once() -> None:
    names = [law.name for law in all_laws()]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(spec_8_laws())
    assert len(names) == 76
    for law in all_laws():
        assert law.function.__name__ == law.name
        assert law.statement, f"{law.name} has no statement"


def test_the_counter_gives_pushs_list() -> None:
    for t in range(300):
        assert stack(t + 1) == push.stack_at(t)


def test_shards_merge_as_one_run() -> None:
    """An exploring run's shards: a law broken in any shard is broken, the
    others hold over the histories of all shards together."""
    laws = [law for law in all_laws() if law.name in ("view_covers", "cview_covers")]
    broken = Broken("cview_covers", "says", "a counterexample", "x.jsonl")

    def shard(histories: int, results: dict[str, Held | Broken]) -> Verdicts:
        applied = {law.name: histories for law in laws}
        seconds = {law.name: 1.0 for law in laws}
        tally = Tally(seconds, applied, histories, 10 * histories, 1, searching=histories / 2)
        return Verdicts(results, None, tally)

    held = Held("property over 7 histories of up to 40 events")
    one = shard(7, {"view_covers": held, "cview_covers": held})
    two = shard(5, {"view_covers": held, "cview_covers": broken})
    run = merged([one, two], laws, SMALL, None)
    assert run.results["cview_covers"] is broken
    assert run.results["view_covers"] == Held("property over 12 histories of up to 40 events")
    assert (run.tally.histories, run.tally.events, run.tally.refused) == (12, 120, 2)
    assert run.tally.seconds["view_covers"] == 2.0 and run.harness is None
    # Each shard's own time: the laws' seconds are summed over processes too.
    assert run.tally.searching == 6.0


def test_a_broken_line_law_is_shrunk_from_the_shared_cases() -> None:
    """The line laws share their drawn reply lists; one that breaks on them
    is searched again alone and shrunk to the smallest reply list."""

    def at_most_two_replies(case: Case) -> None:
        assert len(case.replies) <= 2, f"{len(case.replies)} replies"

    with pytest.raises(AssertionError) as raised:
        line_check(SHORT, at_most_two_replies)
    assert str(raised.value).startswith("3 replies\n")
    shrunk = "Case(source='c', replies=['', '', ''], node=4, tries=1, limits=SPEC)"
    assert shrunk in str(raised.value)
    assert line_check(SHORT, lambda case: None).strength == (
        f"property over {SHORT.line_examples} reply lists"
    )


def test_without_shrinking_a_broken_law_keeps_the_history_found(tmp_path: Path) -> None:
    """`--no-shrink` (make mutants): the law is still broken, its counterexample
    the first history that broke it, not shrunk to the three messages."""
    law = Law("three_lines_at_most", "view", "step", three_lines_at_most)
    verdicts = check_step_laws([law], dataclasses.replace(SMALL, shrink=False), tmp_path)
    broken = verdicts.results["three_lines_at_most"]
    assert isinstance(broken, Broken)
    events = scenario_format.read(Path(broken.scenario)).events
    assert sum(e["event"] == "message" for e in events) >= 3
    assert len(events) > 3


def test_a_model_that_raises_breaks_taken_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that neither takes nor refuses an event (it raises) breaks
    refused_changes_nothing, with the history; without that law in the run
    it is a harness error, outside every law."""
    step = machine.step

    def raising(state: machine.State, event: object) -> machine.State:
        if isinstance(event, Wait):
            raise KeyError("a planted crash")
        return step(state, event)  # type: ignore[arg-type]

    monkeypatch.setattr(machine, "step", raising)
    law = next(law for law in all_laws() if law.name == "refused_changes_nothing")
    verdicts = check_step_laws([law], SHORT, tmp_path)
    broken = verdicts.results["refused_changes_nothing"]
    assert isinstance(broken, Broken) and verdicts.harness is None
    assert "KeyError: 'a planted crash'" in broken.counterexample
    assert [e["event"] for e in scenario_format.read(Path(broken.scenario)).events] == ["wait"]
    other = next(law for law in all_laws() if law.name == "view_covers")
    verdicts = check_step_laws([other], SHORT, tmp_path)
    assert verdicts.harness is not None and "a planted crash" in verdicts.harness


class Hung(Exception):
    """A law's check ran past the test's bound."""


def test_a_model_that_starts_no_call_breaks_settle_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model that starts no call of its own under `calls: self` breaks
    settle_reached: the law's loop to settle must not spin for ever on it
    (this "calls inert" break once held `make mutants` for half an hour)."""

    def inert(state: machine.State, event: Event) -> machine.State:
        return machine._apply(machine.refuse(state), event)

    def hung(signum: int, frame: object) -> None:
        raise Hung("settle_reached ran past 30 s")

    monkeypatch.setattr(machine, "step", inert)
    state = machine.initial(Constants(), Profile(calls="self"))
    for text in ("a" * 600, "b" * 600):  # longer than NODE: a call must summarize each
        state = inert(state, Message("user", text))
    after = inert(state, Wait())
    assert after.queue.waiting and not after.queue.running and machine.candidates(after)
    law = next(law for law in all_laws() if law.name == "settle_reached")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        with pytest.raises(AssertionError, match="retried and still runs no call"):
            law.function(Step(state, Wait(), after))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def capped_cannot_retry(step: Step) -> None:
    """Off under a failure cap: checks only that its history has none."""
    assert not step.after.profile.capped, "a capped history reached a law off under a cap"


def test_laws_off_under_spec_get_histories_they_apply_to(tmp_path: Path) -> None:
    # Three histories in four are SPEC's own profile, under which this law is
    # off; `--only` such laws must still be checked on every history drawn.
    law = Law(
        "capped_cannot_retry",
        "profile",
        "step",
        capped_cannot_retry,
        off=lambda p: "failure_cap failures" if p.capped else None,
    )
    verdicts = check_step_laws([law], SHORT, tmp_path)
    assert isinstance(verdicts.results["capped_cannot_retry"], Held)
    assert verdicts.tally.applied["capped_cannot_retry"] == verdicts.tally.histories >= 30
    # In a whole run beside laws that apply under SPEC, such a law sees the
    # quarter of the shared histories drawn under other profiles, then a
    # pass of its own (`ahead_in_wait inert` was missed without it).
    spec_law = next(law for law in all_laws() if law.name == "view_covers")
    verdicts = check_step_laws([spec_law, law], SHORT, tmp_path)
    applied = verdicts.tally.applied
    assert applied["view_covers"] < verdicts.tally.histories
    assert applied["capped_cannot_retry"] >= applied["view_covers"] // 4 + 30
    assert isinstance(verdicts.results["capped_cannot_retry"], Held)
    assert verdicts.results["capped_cannot_retry"].strength.startswith(
        f"property over {applied['capped_cannot_retry']} histories"
    )


def test_histories_draw_their_events_without_data_draws_bookkeeping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each event is drawn from the choices under `st.data()`: `data.draw`'s
    bookkeeping per draw was two fifths of drawing and stepping a history."""
    calls: list[object] = []
    counted = DataObject.draw

    def counting(self: DataObject, strategy: object, label: object = None) -> object:
        calls.append(strategy)
        return counted(self, strategy, label)  # type: ignore[arg-type]

    monkeypatch.setattr(DataObject, "draw", counting)
    law = next(law for law in all_laws() if law.name == "view_covers")
    verdicts = check_step_laws([law], SHORT, tmp_path)
    assert isinstance(verdicts.results["view_covers"], Held)
    # One `data.draw` per history (its length), none per event.
    assert len(calls) == verdicts.tally.histories < verdicts.tally.events // 5


def test_the_repeat_line_keeps_the_engine_profile_the_laws_ran_under(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seeded run under `--engine-profile` prints a command that checks the
    same laws under the same profile, its path quoted for the shell."""
    profile = tmp_path / "my engine.json"
    profile.write_text(json.dumps({"trim_lines": True}), encoding="utf-8")
    argv = ["--only", "first_is_not_last", "--seed", "3", "--jobs", "1"]
    argv += ["--engine-profile", str(profile), "--regressions", str(tmp_path / "r")]
    assert laws_main.main(argv) == 0
    out = capsys.readouterr().out
    assert (
        f"seed 3 (again: python -m laws --profile ci --seed 3 --only first_is_not_last"
        f" --engine-profile '{profile}')" in out
    ), out


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "No such file or directory"),
        (
            '{\n  "trim_lines": true,\n}\n',
            "not JSON: Expecting property name enclosed in double quotes (line 3, column 1)",
        ),
        ('{"trim_lines": "yes"}', "trim_lines"),
    ],
    ids=["missing", "not-json", "bad-option"],
)
def test_a_bad_engine_profile_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, problem: str
) -> None:
    """SPEC 10's profile file is the user's input: a mistake in it is a usage
    error, one line naming the file (and for JSON the line in it), no law run."""
    profile = tmp_path / "engine.json"
    if text is not None:
        profile.write_text(text, encoding="utf-8")
    argv = ["--only", "first_is_not_last", "--jobs", "1", "--engine-profile", str(profile)]
    assert laws_main.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith(f"laws: --engine-profile {profile}: ") and problem in line, line
