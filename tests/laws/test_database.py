"""An exploring laws run (with a seed) keeps the histories that broke a law
in its example database and replays them first on its next run, whatever
that run's seed (Hypothesis's `seed` alone would turn the database off)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from laws.history import check_step_laws
from laws.registry import Broken, Held, Law
from tests.laws.test_runner import SHORT, three_lines_at_most

LAW = Law("three_lines_at_most", "view", "step", three_lines_at_most)


def test_a_broken_history_is_kept_and_replayed_first(tmp_path: Path) -> None:
    database = tmp_path / "examples"
    found = dataclasses.replace(SHORT, seed=5, database=str(database))
    assert isinstance(check_step_laws([LAW], found, tmp_path / "a").results[LAW.name], Broken)
    assert [p for p in database.rglob("*") if p.is_file()], "nothing kept"
    # One history from another seed: the simplest one Hypothesis draws first
    # (no event) holds; with the database, the kept history comes first.
    once = dataclasses.replace(SHORT, histories=1, seed=6)
    alone = check_step_laws(
        [LAW], dataclasses.replace(once, database=str(tmp_path / "new")), tmp_path / "b"
    )
    assert isinstance(alone.results[LAW.name], Held)
    again = check_step_laws(
        [LAW], dataclasses.replace(once, database=str(database)), tmp_path / "c"
    )
    assert isinstance(again.results[LAW.name], Broken)
