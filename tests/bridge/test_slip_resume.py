"""Slipped replays that go on from where the model's replay stood, with
the same judgments as replays from the start (issue 40, "red as fast as
green"; bridge/wire/stream.py `Paused`, bridge/checking/slips.py
`Failure.resumed`), and a forked judge's judgment waited for, not made
twice. The engine is planted.py's, run as a process (no patch of `impl`)."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bridge.checking import slips
from bridge.formats.profile import SPEC
from bridge.runs.corpus import Options, check
from bridge.wire.stream import Paused, from_model
from scenarios.format import read

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "scenarios" / "corpus"
PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'}"


def failure_of(plant: str, scenario: str) -> slips.Failure:
    found = check(CORPUS / f"{scenario}.jsonl", Options(f"{PLANTED} {plant}"))
    assert found.status == "FAIL" and found.failure is not None, found.reason
    return found.failure


@pytest.mark.parametrize(
    ("name", "calls"),
    [
        ("refused_fail_needs_running_0", "driven"),
        ("refused_fail_needs_running_0", "self"),
        ("refused_settle_needs_wait_0", "self"),
    ],
)
def test_a_replay_resumed_where_it_paused_gives_the_rest_of_the_whole_replay(
    name: str, calls: str
) -> None:
    """From every place a replay paused at, a replay resumed there gives
    exactly the exchanges the whole replay gave after it: under SPEC, and
    under `calls: self` where ends and fails are held back while their
    call runs, or relative events wait for a state they can be sent in."""
    scenario = read(CORPUS / f"{name}.jsonl")
    profile = replace(SPEC, calls=calls)
    paused: list[Paused] = []
    replay = from_model(scenario, profile, False, (), paused=paused.append)
    whole = [(e.line, e.expected, e.sent) for e in replay]
    sent = [k for k, (_, _, was_sent) in enumerate(whole) if was_sent]
    assert len(paused) == len(sent) - 1  # the final detail request is no event's
    held = [p for p in paused if p.held or p.idle or p.starts or p.outcomes]
    assert calls == "driven" or held
    for number, place in enumerate(paused):
        resumed = from_model(scenario, profile, False, (), resume=place)
        assert [(e.line, e.expected, e.sent) for e in resumed] == whole[sent[number] + 1 :]


def test_judgments_resumed_after_a_sift_are_those_of_whole_replays() -> None:
    """Leaves offered after merges (merges_first) first show in chooser_0's
    queue at a message: each slip of the queue and the views the model ran
    there, sifted, then judged from where the model's replay stood before
    its function first gave otherwise, is judged as it is replayed whole
    (what judging leaves too: refuted, parted), and some are resumed past
    the start."""
    sifted = failure_of("merges_first", "chooser_0")
    whole = replace(sifted)
    tried = [s for s in slips.catalogue() if s.module in ("queue", "view") and sifted.reaches(s)]
    sifted.sift(tried)
    later = [s for s in tried if sifted.resumed((s,))[0] > 0]
    assert later and sifted.pauses
    judged = {s.id: sifted.explained_by(s) for s in tried}
    assert judged == {s.id: whole.explained_by(s) for s in tried}
    assert sifted.refuted == whole.refuted and sifted.parted == whole.parted
    assert any(judged[s.id] for s in later) and not all(judged[s.id] for s in later)
    # Two slips start from the start: each was sifted beside the model's
    # other functions, never beside the other slip.
    assert all(sifted.resumed((s, t)) == (0, None) for s in later for t in tried if t != s)


def test_a_sift_keeps_pauses_places_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    """However many answers come before the divergence, a sift keeps
    `PAUSES` places of the model's replay at most, and its judgments are
    still those of whole replays."""
    sifted = failure_of("merges_first", "chooser_0")
    whole = replace(sifted)
    tried = [s for s in slips.catalogue() if s.module == "queue" and sifted.reaches(s)]
    for most in (2, 3, 4):
        monkeypatch.setattr(slips, "PAUSES", most)
        capped = replace(sifted)
        capped.sift(tried)
        assert sifted.index + 1 > most and 0 < len(capped.pauses) <= most, most
    assert {s.id: capped.explained_by(s) for s in tried} == {
        s.id: whole.explained_by(s) for s in tried
    }


def test_a_judgment_the_forked_judge_is_making_is_waited_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """While the forked judge makes a judgment it said it started (held
    there until a file is written, a moment after this process asks),
    this process asks for the same one: it waits and takes the forked
    judge's, with what judging leaves (the slip refuted past the
    divergence), and makes none itself."""
    failure = failure_of("free_leaf", "random_07")
    pairs = slips.by_id()["slip:view.is_pair.lt-gt.0"]
    go = tmp_path / "go"
    here = os.getpid()
    judge = slips.Failure.judge
    made: list[tuple[slips.Slip, ...]] = []

    def held(f: slips.Failure, *s: slips.Slip) -> bool:
        if os.getpid() == here:
            made.append(s)
        while os.getpid() != here and not go.exists():
            time.sleep(0.01)
        return judge(f, *s)

    monkeypatch.setattr(slips.Failure, "judge", held)
    # However slow the machine, this process waits for the forked judge.
    monkeypatch.setattr(slips, "WAITING", math.inf)
    ahead = slips.Ahead()
    ahead.start([failure], lambda f: f.explained_by(pairs))
    slips.AHEAD.append(ahead)
    later = threading.Timer(0.2, go.touch)
    try:
        said = time.monotonic() + 600
        while not ahead.knows(failure, (pairs,), wait=False):
            assert time.monotonic() < said, "the forked judge never said it started"
            time.sleep(0.01)
        assert not ahead.told  # said, not made yet
        later.start()
        assert not failure.explained_by(pairs) and pairs in failure.refuted
        assert made == []
    finally:
        later.cancel()
        go.touch()
        slips.AHEAD.remove(ahead)
        ahead.stop()


def test_a_sift_of_a_large_fail_notes_the_functions_a_probe_would() -> None:
    """A sift of a FAIL of more than SCANNED_WHILE_REPLAYING events notes
    which watched functions the model ran (`Failure.called`), sparing the
    probes' replay: the same functions that replay finds."""
    sifted = failure_of("free_leaf", "random_01")
    assert len(sifted.scenario.events) > slips.SCANNED_WHILE_REPLAYING
    probed = replace(sifted)
    tried = [s for s in slips.catalogue() if s.module == "queue"][:5]
    sifted.sift(tried)
    probed.judged[(tried[0],)] = False  # judged before, so judged again: probed
    probed.calls(tried[0])
    assert sifted.called and sifted.called == probed.called
