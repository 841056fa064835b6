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
from bridge.checking import slips
from bridge.runs.corpus import Options, check
from tests.bridge.helpers import NEVER

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import ahead_running  # noqa: E402
import free_leaf_queued  # noqa: E402
import lone_cr  # noqa: E402
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


LONE_CR = {
    "random_10": "render_timed_out_crc@timeout",
    "both_kind_utf8": "render_timed_out@detail",
    "both_node_exists_ahead_bound": "render@detail",
    "random_07": "render_crc@message",
    "zoom_0": "zoom@zoom",
}
"""Scenarios where a lone `\r` left unflattened (lone_cr.py) shows first,
each with the field and the event where: the timed-out render (its text,
its checksum) at the end and at a timeout, the render at the end and its
checksum at a message, a zoom's halves."""
AHEAD_ALONE = {
    "refused_retry_waits_0": "queue@start",
    "refused_zoom_2": "queue@message",
    "refused_one_wait_0": "queue@fail",
}
"""Scenarios where the AHEAD bug shows first beside it, in the queue at a
start, a message and a fail."""


def first_divergences(report: dict) -> dict[str, str]:
    """Each FAIL's first divergence as `FIELD@KIND`, read from the JSON report."""
    found = {}
    for shown in report["scenarios"]:
        first = shown["divergence"]
        kind = (first["event"] or {}).get("event", "detail")
        found[Path(shown["scenario"]).stem] = f"{first['field']}@{kind}"
    return found


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_two_bugs_of_one_engine_each_seen_in_several_ways_are_two_causes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone `\r` left in renders and zooms (a slip of the model's
    flattening explains it) and a running leaf not counted toward AHEAD
    (none does) in one engine: one cause each, the first named by the slip,
    the second said to be unexplained, each shrunk to its bug alone."""
    with monkeypatch.context() as patched:
        lone_cr.plant(patched.setattr)
        ahead_running.plant(patched.setattr)
        out, report = corpus(capsys, tmp_path, *LONE_CR, *AHEAD_ALONE)
    assert first_divergences(report) == {**LONE_CR, **AHEAD_ALONE}
    n = len(LONE_CR) + len(AHEAD_ALONE)
    assert f"verdict before shrinking: {n} scenarios: {n} FAIL from 2 causes" in out
    assert out.splitlines()[-1].startswith(f"{n} scenarios: {n} FAIL from 2 causes"), out
    by_slip = {c["slip"] is not None: c for c in report["causes"]}
    text, queue = by_slip[True], by_slip[False]
    assert (text["slip"]["file"], text["slip"]["function"]) == ("model/text.py", "flatten")
    assert sorted(Path(p).stem for p in text["scenarios"]) == sorted(LONE_CR)
    assert f"your engine agrees with SPEC on all {len(LONE_CR)} of these if in `flatten`" in out
    assert queue["part"] == "queue" and "no rule slip explains it" in queue["said"]
    assert sorted(Path(p).stem for p in queue["scenarios"]) == sorted(AHEAD_ALONE)
    for plant, own, other in (
        (lone_cr.plant, text["shrunk"], queue["shrunk"]),
        (ahead_running.plant, queue["shrunk"], text["shrunk"]),
    ):
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            code = cli.main(
                ["corpus", "--jobs", "1", "--engine", "impl", "--shrink-tries", "0",
                 str(tmp_path / "found" / "scenarios")]
            )  # fmt: skip
            said = capsys.readouterr().out
        assert code == 1, said
        assert re.findall(r"FAIL (\S+)\.jsonl", said) == [Path(own).stem], said
        assert Path(other).stem in said


MIMICKED = ["both_node_exists_need_first", "refused_need_first_1"]
"""Scenarios that end before the AHEAD bug parts from AHEAD + 1 (with one
leaf running, a running leaf not counted is one more leaf offered)."""
PARTED = ["refused_zoom_2"]
"""A scenario where it parts from it past the divergence: the engine offers
SPEC's queue where AHEAD + 1's model offers one leaf more."""


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_a_slip_refuted_on_one_fail_explains_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine is one program: a slip whose model the engine parts from
    on one FAIL is not its rule on the FAILs it mimics to their end, and
    the verdict before shrinking says one cause, no slip, as the end does."""
    ahead_running.plant(monkeypatch.setattr)
    wider = slips.by_id()["slip:constants.ahead.plus1.0"]
    failures = {
        name: check(ROOT / "scenarios" / "corpus" / f"{name}.jsonl", Options(engine="impl")).failure
        for name in [*MIMICKED, *PARTED]
    }
    for name, failure in failures.items():
        assert failure is not None and failure.explained_by(wider) == (name in MIMICKED), name
    out, report = corpus(capsys, tmp_path, *MIMICKED, *PARTED)
    n = len(MIMICKED) + len(PARTED)
    assert f"verdict before shrinking: {n} scenarios: {n} FAIL from 1 cause" in out
    (cause,) = report["causes"]
    assert cause["slip"] is None and cause["part"] == "queue", out


QUEUED = {"chooser_0": True, "both_built_once_need_first": False}
"""Scenarios where a free leaf left queued (free_leaf_queued.py) shows,
each with whether `is_free` read backwards (`<=` as `>=`: a small message
not free) mimics it up to the divergence: not in the second, whose first
message is over NODE (not free in SPEC, nor in the engine, but free in
that slip's model)."""


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_a_slip_whose_model_parts_from_spec_before_the_divergence_is_refuted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before its divergence the engine gave SPEC's answers: a slip whose
    model gives another there is not the engine's rule, on that FAIL or any."""
    free_leaf_queued.plant(monkeypatch.setattr)
    backwards = slips.by_id()["slip:tree.is_free.le-ge.0"]
    for name, mimics in QUEUED.items():
        failure = check(ROOT / "scenarios" / "corpus" / f"{name}.jsonl", Options(engine="impl"))
        assert failure.failure is not None
        assert failure.failure.explained_by(backwards) == mimics, name
        assert (backwards in failure.failure.refuted) != mimics, name
    out, report = corpus(capsys, tmp_path, *QUEUED)
    assert all((c["slip"] or {}).get("id") != backwards.id for c in report["causes"]), out
    before = re.search(r"verdict before shrinking: (.*) causes?;", out)
    assert before is not None and out.splitlines()[-1].startswith(before[1]), out


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_a_second_cover_after_the_scanning_budget_keeps_the_slips_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`explain` covers the FAILs again without a refuted slip; by then the
    scanning budget can be spent, and no scan could find the other slips
    again: the groups found first are tried first, with no scan."""
    lone_cr.plant(monkeypatch.setattr)
    failure = check(ROOT / "scenarios" / "corpus" / "random_10.jsonl", Options(engine="impl"))
    assert failure.failure is not None
    (flatten,) = [s for s in slips.catalogue() if s.id.startswith("slip:text.flatten.skip-")
                  and failure.failure.explained_by(s)]  # fmt: skip
    seeded = slips.Explaining(0.0, 3, seeds=[[flatten]])  # a deadline past: no scan
    seeded.add(failure.failure)
    groups, alone = seeded.explained()
    assert [g.slips for g in groups] == [[flatten]] and not alone
    unseeded = slips.Explaining(0.0, 3)
    unseeded.add(failure.failure)
    groups, alone = unseeded.explained()
    assert not groups and alone == [failure.failure]
