"""Causes no rule slip explains are grouped by bug, not by where it shows
(issue 40, bridge/checking/causes.py): a planted bug that no slip explains
(a running leaf not counted toward AHEAD) first shows at messages, starts
and fails, in the queue and as a start taken that SPEC refuses, and is one
cause; with a second bug no slip explains (a zoom's halves newest first)
beside it, two. The engine runs in this process (`impl`, patched), on a
few small scenarios where the bugs show first."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

import impl
from bridge import cli
from tests.bridge.helpers import NEVER

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import ahead_running  # noqa: E402
import zoom_newest_first  # noqa: E402

from impl import protocol  # noqa: E402

AHEAD = {
    "refused_retry_waits_0": "start",
    "refused_zoom_2": "message",
    "refused_utf8_0": "message",
    "refused_need_first_1": "fail",
    "refused_one_wait_0": "fail",
}
"""Scenarios where the AHEAD bug shows first, each with the kind of event
where it does (the queue differs there), read from SPEC apart from the
grouping: the test checks each FAIL line says so."""
ZOOM = ["zoom_0"]
"""A scenario where a zoom's halves newest first shows, and the AHEAD bug does not."""


def plant_zoom(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = protocol.Session.answer

    def answered(self: protocol.Session, request: dict) -> dict:
        return zoom_newest_first.newest_first(request, answer(self, request))

    monkeypatch.setattr(protocol.Session, "answer", answered)


def corpus(capsys: pytest.CaptureFixture[str], tmp_path: Path, *names: str) -> tuple[str, dict]:
    only = [arg for name in names for arg in ("--only", name)]
    report = tmp_path / "r.json"
    args = ["corpus", "--jobs", "1", "--engine", "impl", "--shrink-tries", "150", *only]
    args += ["--shrink-seconds", NEVER]  # not bounded by the replay's time
    code = cli.main([*args, "--regressions", str(tmp_path / "found"), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    return out, json.loads(report.read_text())


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_one_bug_shown_at_several_kinds_of_events_is_one_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead_running.plant(monkeypatch.setattr)
    out, report = corpus(capsys, tmp_path, *AHEAD)
    for name, kind in AHEAD.items():
        assert re.search(rf"FAIL {name}\.jsonl .*\n.*\{{\"event\": \"{kind}\"", out), name
    kinds = {d["divergence"]["event"]["event"] for d in report["scenarios"]}
    assert kinds == {"start", "message", "fail"}
    (cause,) = report["causes"]
    assert cause["slip"] is None and cause["part"] == "queue"
    assert sorted(Path(p).stem for p in cause["scenarios"]) == sorted(AHEAD)
    n = len(AHEAD)
    assert out.splitlines()[-1].startswith(f"{n} scenarios: {n} FAIL from 1 cause")


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_two_bugs_no_slip_explains_are_two_causes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead_running.plant(monkeypatch.setattr)
    plant_zoom(monkeypatch)
    out, report = corpus(capsys, tmp_path, *AHEAD, *ZOOM)
    by_part = {c["part"]: sorted(Path(p).stem for p in c["scenarios"]) for c in report["causes"]}
    assert by_part == {"queue": sorted(AHEAD), "zoom": ZOOM}, out
    assert all(c["slip"] is None for c in report["causes"])
