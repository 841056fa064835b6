"""Judging FAILs by rule slips at less cost, with the same judgments
(issue 40, "red as fast as green"; bridge/checking/slips.py): a sift
replays a FAIL once for several slips and spares those that change no
answer up to its divergence; a forked process judges ahead and this one
takes its judgments as its own. The engine is planted.py's, run as a
process (no patch of `impl`), on one scenario where its bug shows."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bridge.checking import slips
from bridge.runs.corpus import Options, check

ROOT = Path(__file__).resolve().parents[2]
PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'}"


def failure_of(plant: str, scenario: str) -> slips.Failure:
    path = ROOT / "scenarios" / "corpus" / f"{scenario}.jsonl"
    found = check(path, Options(f"{PLANTED} {plant}"))
    assert found.status == "FAIL" and found.failure is not None, found.reason
    return found.failure


def test_a_sift_spares_only_the_slips_that_change_no_answer_up_to_the_divergence() -> None:
    """Leaves offered after merges (merges_first) first show in chooser_0's
    queue at a message: of the queue's slips the model ran there, a sift
    spares some, and every one it spares gives the model's very answers up
    to the divergence (replayed whole, one by one, with the slip applied);
    each slip is judged as it is without a sift, and the one that names the
    bug is not spared."""
    sifted = failure_of("merges_first", "chooser_0")
    plain = replace(sifted)
    tried = [s for s in slips.catalogue() if s.module == "queue" and sifted.reaches(s)]
    sifted.sift(tried)
    spared = sifted.same
    assert spared and len(spared) < len(tried)
    assert {s for s in tried if slips.siftable(s)} == sifted.sifted
    for slip in spared:
        changed = slips.differing_answers(sifted.scenario, slip, sifted.profile, sifted.lacks)
        assert changed is not None and [k for k in changed if k <= sifted.index] == [], slip.id
    judged = {s.id: sifted.explained_by(s) for s in tried}
    assert judged == {s.id: plain.explained_by(s) for s in tried}
    assert sifted.refuted == plain.refuted and sifted.parted == plain.parted
    naming = [name for name, explains in judged.items() if explains]
    assert "slip:queue.candidates" in " ".join(naming)
    assert not {s.id for s in spared} & set(naming)


def test_judgments_made_ahead_in_a_forked_process_are_taken_as_made_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A free leaf not built at its message (free_leaf) shows in random_07
    as a batch the view's pairs read backwards (`is_pair`) would make too,
    a slip the engine refutes past the divergence. Judged in the forked
    process, the judgment is taken here with what judging leaves (the slip
    refuted), and this process replays nothing for it; a judgment the
    forked process did not make is made here."""
    failure = failure_of("free_leaf", "random_07")
    pairs = slips.by_id()["slip:view.is_pair.lt-gt.0"]
    other = slips.by_id()["slip:view.is_pair.eq-ne.0"]
    reference = replace(failure)
    assert not reference.explained_by(pairs) and pairs in reference.refuted
    ahead = slips.Ahead()
    ahead.start([failure], lambda f: f.explained_by(pairs))
    os.waitpid(ahead.pid, 0)  # its work done: what it sent waits in the pipe
    ahead.pid = 0
    judged: list[tuple[slips.Slip, ...]] = []
    judge = slips.Failure.judge
    monkeypatch.setattr(slips.Failure, "judge", lambda f, *s: judged.append(s) or judge(f, *s))
    slips.AHEAD.append(ahead)
    try:
        assert failure.judged == {} and not failure.refuted
        assert not failure.explained_by(pairs) and pairs in failure.refuted
        assert judged == []
        failure.explained_by(other)
        assert judged == [(other,)]
    finally:
        slips.AHEAD.remove(ahead)
        ahead.stop()
