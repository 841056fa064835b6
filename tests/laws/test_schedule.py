"""How a laws run spreads its work over the worker processes (laws/__main__.py `run`)."""

from __future__ import annotations

import dataclasses
import os
from multiprocessing import Barrier
from pathlib import Path

import pytest

import laws.__main__ as laws_main
from laws.all import all_laws
from laws.registry import PROFILES, Held, Profile

CHECKS = [law.name for law in all_laws() if law.kind == "check"]


def test_shards_go_first_then_the_check_laws_longest_first() -> None:
    checks = [law for law in all_laws() if law.kind == "check"]
    tasks = laws_main.plan(checks, 2)
    assert tasks[:2] == [0, 1]
    names = [name for task in tasks[2:] for name in task]  # type: ignore[union-attr]
    assert sorted(names) == sorted(CHECKS)
    # The two longest (250 and 173 s of the nightly) are never left for last.
    assert tasks[2] == ("push_agrees_always",) and tasks[3] == ("bits_agree",)
    rest = [name for name in names if name not in laws_main.LONGEST]
    assert set(laws_main.LONGEST) <= set(CHECKS)
    assert [n for n in rest if not n.startswith("line_")] == [
        n for n in CHECKS if n not in laws_main.LONGEST and not n.startswith("line_")
    ]


def test_the_line_laws_are_one_task_as_they_share_their_reply_lists() -> None:
    """Every line law checks the same drawn reply lists (laws/line/cases.py,
    drawn once per process): split over two workers, both would draw them."""
    checks = [law for law in all_laws() if law.kind == "check"]
    line = [law.name for law in checks if law.area == "line"]
    assert len(line) >= 5 and "line_calls_at_most_tries" in line
    tasks = laws_main.plan(checks, 0)
    assert tuple(line) in tasks
    assert tasks.index(tuple(line)) == 4  # fifth longest: line_calls_at_most_tries


def test_an_exploring_run_has_a_shard_per_worker_a_derandomized_one_one() -> None:
    steps = [law for law in all_laws() if law.kind == "step"]
    deep = dataclasses.replace(PROFILES["deep"], seed=7)
    shards = laws_main.shard_profiles(steps, deep, 2)
    assert [(s.seed, s.histories) for s in shards] == [(7, 2500), (8, 2500)]
    assert laws_main.shard_profiles(steps, PROFILES["ci"], 2) == [PROFILES["ci"]]
    assert laws_main.shard_profiles([], deep, 2) == []


MEETING = Barrier(2)


def meets_another_worker(name: str, profile: Profile) -> tuple[Held, float]:
    """A stand-in check law: the first one a process takes waits until
    another process has taken one too, then says which process ran it."""
    if not getattr(meets_another_worker, "met", False):
        meets_another_worker.met = True  # type: ignore[attr-defined]
        MEETING.wait(timeout=120)
    return Held(str(os.getpid())), 0.0


def test_the_check_laws_are_spread_over_the_workers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Both workers take check laws (the nightly ran them all in a third
    process that two cores shared with the histories' two), and no more
    processes than `--jobs` run."""
    monkeypatch.setattr(laws_main, "check_law", meets_another_worker)
    chosen = [law for law in all_laws() if law.kind == "check"]
    ran = laws_main.run(chosen, PROFILES["ci"], None, tmp_path, jobs=2)
    results, _, _, harness, interrupted = ran
    assert harness is None and not interrupted and set(results) == {law.name for law in chosen}
    ran_in = {result.strength for result in results.values() if isinstance(result, Held)}
    assert len(ran_in) == 2 and str(os.getpid()) not in ran_in
