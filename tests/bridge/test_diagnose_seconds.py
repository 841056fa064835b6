"""diagnose's `--seconds` bounds the naming of its likely bugs too
(bridge/runs/diagnose.py `grouped`): trying rule slips after their replay,
and each cause's shrink (bridge/runs/triage.py), end by the run's end, so
that no cause's shrink is given the whole rest of the run again (a run of
`--seconds S` with two causes could take up to about 2S). Checked on the
ends the run hands them, with --shrink-seconds beyond the run's end: no
test of time. The engine: planted.py's three bugs (a late failure cap, a
free leaf counted as a placeholder, a zoom newest first), in this process,
on three small scenarios where diagnose proposes no change."""

from __future__ import annotations

import inspect
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bridge import cli
from bridge.runs import diagnose, triage
from tests.bridge.helpers import NEVER, in_process, with_bug

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "scenarios" / "corpus"
PLANTS = ("free_leaf", "late_cap", "zoom")
PLANTED = " ".join(
    [sys.executable, str(ROOT / "tests" / "bridge" / "engines" / "planted.py"), *PLANTS]
)
THREE_BUGS = ("refused_zoom_0", "refused_merge_needs_halves_2", "both_need_first_jobs_bound")
"""As in test_diagnose_rules.py: two causes, one named by a rule slip."""
SECONDS = 300.0
"""The run's --seconds: far more than it takes, far less than --shrink-seconds."""

LATE = 10.0
"""How long trying the slips after the likely bugs' replay takes, on the clock."""

SHRINKS = ("slip_shrunk", "later_shrunk", "grouped")
"""triage's shrinks of one cause, or of the causes no slip names."""


class Clock:
    """diagnose's and triage's `time`: `monotonic` stands still, but for
    what a test moves it by (the rest of `time` is Python's)."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def spied(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    clock: Clock,
    ends: list[tuple[str, float]],
    after: Callable[[], None] = lambda: None,
) -> None:
    """triage's function `name` noted in `ends`, when called, with the
    latest time it may run to, on `clock`: the least of its `ends` and,
    for a shrink given a Shrinking (`args`), its seconds from now; or, for
    the slips tried after the replay, its `scanning` seconds from now.
    `after` is done once it returns."""
    original: Callable[..., Any] = getattr(triage, name)
    signature = inspect.signature(original)

    def noted(*args: Any, **kwargs: Any) -> Any:
        given = signature.bind(*args, **kwargs).arguments
        latest = given.get("ends", math.inf)
        if "scanning" in given:
            latest = min(latest, clock.now + given["scanning"])
        spending = given.get("args")
        if isinstance(spending, triage.Shrinking) and spending.shrink_seconds is not None:
            latest = min(latest, clock.now + spending.shrink_seconds)
        ends.append((name, latest))
        found = original(*args, **kwargs)
        after()
        return found

    monkeypatch.setattr(triage, name, noted)


def test_the_naming_of_likely_bugs_ends_by_the_runs_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock moves on by LATE while the slips are tried after the
    replay: the shrinks then have what is left of the run, no more (with
    the whole rest given each, a cause's shrink could end LATE seconds past
    the run's end, or with --shrink-seconds, later still)."""
    in_process(
        monkeypatch,
        lambda spec: with_bug(spec, "planted", *PLANTS) if spec == PLANTED else None,
    )
    clock = Clock()
    monkeypatch.setattr(diagnose, "time", clock)
    monkeypatch.setattr(triage, "time", clock)
    runs: list[diagnose.Run] = []

    class Noted(diagnose.Run):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            runs.append(self)

    monkeypatch.setattr(diagnose, "Run", Noted)
    ends: list[tuple[str, float]] = []

    def later() -> None:
        clock.now += LATE

    spied(monkeypatch, "explained", clock, ends, later)
    for name in SHRINKS:
        spied(monkeypatch, name, clock, ends)
    paths = [str(CORPUS / f"{name}.jsonl") for name in THREE_BUGS]
    code = cli.main(
        ["diagnose", *paths, "--engine", PLANTED, "--jobs", "1", "--seconds", f"{SECONDS:g}"]
        + ["--shrink-tries", "1", "--shrink-seconds", NEVER, "--regressions", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert code == 1 and "out of time" not in out, out
    (run,) = runs
    assert float(NEVER) > SECONDS and run.deadline == run.began + SECONDS
    named = [name for name, _ in ends]
    assert named.count("explained") == 1 and "slip_shrunk" in named and len(named) >= 3, named
    late = [(name, end - run.deadline) for name, end in ends if end > run.deadline]
    assert late == [], late
