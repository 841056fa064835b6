"""`diagnose` talks and finishes (issues 34 and 36): a progress line at
least every 10 s; what it found so far printed and written when Ctrl-C or
SIGTERM stops it, or its time budget (`--seconds`) runs out; and no "every
scenario agrees" when none could be followed."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
import types
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from bridge import cli
from bridge.runs import diagnose as run_diagnose
from bridge.runs import follow, progress
from tests.bridge.helpers import NEVER
from tests.bridge.test_diagnose import (
    partial_in_process,  # noqa: F401 (a fixture)
    valid,
)

ROOT = Path(__file__).resolve().parents[2]
ENGINES = Path(__file__).parent / "engines"
CORPUS = ROOT / "scenarios" / "corpus"
PARTIAL = f"{sys.executable} {ENGINES / 'partial.py'}"
FAULTY = f"{sys.executable} {ENGINES / 'faulty.py'} crash 0"
pytestmark = pytest.mark.usefixtures("partial_in_process")  # PARTIAL runs in this process

SCENARIOS = ("refused_retry_waits_0", "chooser_0", "zoom_1")
"""Smallest first, as diagnose follows them with one job."""


@pytest.fixture
def engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol engines run as scripts find the project's packages."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def diagnose(tmp_path: Path, engine: str, *names: str, more: tuple[str, ...] = ()) -> int:
    paths = [str(CORPUS / f"{name}.jsonl") for name in names]
    return cli.main(
        ["diagnose", *paths, "--engine", engine, "--jobs", "1", *more]
        + ["--json", str(tmp_path / "d.json"), "--junit-xml", str(tmp_path / "d.xml")]
        + ["--regressions", str(tmp_path), "--shrink-tries", "1", "--shrink-seconds", NEVER]
    )


def reports(tmp_path: Path) -> tuple[dict[str, Any], ElementTree.Element]:
    """The JSON report (checked against bridge/diagnosis.schema.json) and the JUnit suite."""
    return valid(tmp_path / "d.json"), ElementTree.parse(tmp_path / "d.xml").getroot()


def after_first(monkeypatch: pytest.MonkeyPatch, then: Any) -> None:
    """Run `then()` as the second scenario's work begins (one job: in this process)."""
    real, calls = run_diagnose._job, []

    def job(work: Any) -> Any:
        calls.append(work)
        if len(calls) == 2:
            then()
        return real(work)

    monkeypatch.setattr(run_diagnose, "_job", job)


def test_a_progress_line_comes_every_ten_seconds(
    tmp_path: Path,
    engine_path: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert progress.EVERY == 10
    monkeypatch.setattr(progress, "EVERY", 0.02)
    assert diagnose(tmp_path, PARTIAL, *SCENARIOS[:2]) == 0
    err = capsys.readouterr().err
    line = re.compile(
        r"  \.\.\. diagnose: (following|checking the proposal|[a-z' ]+), (\d+) of (\d+) "
        r"scenarios, ([\d,]+) replays tried, \d+ s \((about \d+ (s|min) left|finishing|"
        r"estimate after the first scenario)\)"
    )
    grown = "  ... diagnose: proposal "  # the proposal as it grows, not a tick
    said = [line.fullmatch(text) for text in err.splitlines() if not text.startswith(grown)]
    assert said and all(said), err
    assert f"{grown}so far, after 2 of 2 scenarios: " in err, err
    following = [m for m in said if m and m.group(1) == "following"]
    assert following and {m.group(3) for m in following} == {"2"}
    assert max(int(m.group(4).replace(",", "")) for m in said if m) > 0


def test_sigterm_keeps_and_writes_what_was_found(
    tmp_path: Path,
    engine_path: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SIGTERM (the runner makes it a KeyboardInterrupt, as Ctrl-C) as the
    second scenario begins: the first one's diagnosis is reported and
    written, the others named as not followed, exit 2."""
    after_first(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGTERM))
    assert diagnose(tmp_path, PARTIAL, *SCENARIOS) == 2
    out, err = capsys.readouterr()
    assert "STOPPED (interrupted) before the end: 2 scenarios not followed" in out, out
    assert [line for line in err.splitlines() if not line.startswith(" ")] == ["interrupted"]
    data, suite = reports(tmp_path)
    assert data["stopped"] == "interrupted"
    assert data["unfinished"] == ["chooser_0.jsonl", "zoom_1.jsonl"]
    (first,) = data["scenarios"]
    assert first["scenario"] == "refused_retry_waits_0.jsonl" and first["status"] == "explained"
    assert data["proposed"]["profile"] == {"retry": "tick"}  # what that scenario needed
    skipped = {c.get("name"): c.find("skipped") for c in suite.iter("testcase")}
    assert set(skipped) == set(SCENARIOS) and skipped["refused_retry_waits_0"] is None
    assert all(skipped[n] is not None for n in SCENARIOS[1:])


def test_out_of_time_keeps_and_writes_what_was_found(
    tmp_path: Path,
    engine_path: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--seconds`: the clock the run reads jumps past the budget as the
    second scenario begins (so that no machine is too slow to follow the
    first within it)."""

    def jump() -> None:
        late = types.SimpleNamespace(monotonic=lambda: time.monotonic() + 10**6)
        monkeypatch.setattr(follow, "time", late)
        monkeypatch.setattr(run_diagnose, "time", late)

    after_first(monkeypatch, jump)
    assert diagnose(tmp_path, PARTIAL, *SCENARIOS, more=("--seconds", "3600")) == 2
    out = capsys.readouterr().out
    assert "STOPPED (out of time (3600 s)) before the end: 2 scenarios" in out, out
    data, _ = reports(tmp_path)
    assert data["stopped"] == "out of time (3600 s)"
    assert data["unfinished"] == ["chooser_0.jsonl", "zoom_1.jsonl"]
    statuses = {s["scenario"]: s["status"] for s in data["scenarios"]}
    assert statuses == {
        "refused_retry_waits_0.jsonl": "explained",
        "chooser_0.jsonl": "unfinished",
        "zoom_1.jsonl": "unfinished",
    }
    assert data["proposed"]["profile"] == {"retry": "tick"}


def test_no_agreement_is_claimed_when_no_scenario_could_be_followed(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36, case 6: every scenario an engine fault (exit 2), or SKIPPED
    (exit 1: nothing was compared, issue 33)."""
    assert diagnose(tmp_path, FAULTY, *SCENARIOS[:2]) == 2
    out = capsys.readouterr().out
    assert "no likely bug" not in out and "agrees" not in out, out
    assert "nothing was checked: no scenario could be followed (2 FAULT)" in out
    assert re.search(r"^FAULT +refused_retry_waits_0\.jsonl: ", out, re.M), out
    # The partial engine declaring its capabilities lacks zoom: zoom_1 tests only that.
    # Nothing compared, no fault: exit 1, as corpus says it (issue 33).
    assert diagnose(tmp_path, PARTIAL + " --declare", "zoom_1") == 1
    out = capsys.readouterr().out
    assert "no likely bug" not in out, out
    assert out.splitlines()[-1].startswith("NOTHING COMPARED: 0 of "), out
    assert "nothing was checked: no scenario could be followed (1 SKIPPED)" in out


def test_a_run_where_scenarios_faulted_never_ends_with_no_likely_bug() -> None:
    """Issue 40: one scenario agrees, one faulted: the verdict says the
    faulted one was not diagnosed, exit 2, and nowhere "no likely bug"."""
    from bridge.checking.changes import Trial
    from bridge.checking.coverage import Coverage
    from bridge.formats.profile import SPEC
    from bridge.outputs.diagnosis import text

    ok, faulted = Path("a.jsonl"), Path("b.jsonl")
    report = run_diagnose.Report(
        "engine",
        Trial(SPEC),
        Trial(SPEC),
        {},
        [follow.Diagnosis(ok, "agrees"), follow.Diagnosis(faulted, "FAULT", reason="it hung")],
        [],
        0.0,
        {ok: Coverage(4, 4)},
    )
    lines, code = text(report)
    out = "\n".join(lines)
    assert code == 2
    assert "no likely bug" not in out.lower(), out
    assert lines[-1].startswith("1 of 2 scenarios NOT DIAGNOSED (see above); "), out
    assert "1 could not be followed (see above): they are not diagnosed" in out
