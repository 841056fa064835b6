"""What `diagnose` says of the likely bugs it names as `corpus` names
causes (issue 40): each cause's own shrunk scenario, where two were shrunk
from one likely bug (a bug that shows only after another's, shrunk from a
FAIL of that other's); a likely bug whose replay faults while it is named,
said so; `compare --proposal`, which the printed commands repeat, read
strictly."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest

from bridge import cli
from bridge.checking.causes import Cause, Signature
from bridge.checking.changes import Trial
from bridge.checking.coverage import Coverage
from bridge.formats import usage
from bridge.formats.profile import SPEC, to_json
from bridge.outputs.diagnosis import text, to_json_report, write_junit
from bridge.runs.diagnose import Report
from bridge.runs.follow import Diagnosis, Step
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.helpers import SMALL, in_process, with_bug
from tests.bridge.test_diagnose import CORPUS, DIAGNOSIS_SCHEMA, SCHEMAS, valid
from tests.bridge.test_one_cause_per_bug import PLANTED

ZOOM = f"{PLANTED} zoom"
"""planted.py's engine with a zoom's halves newest first (no option
explains it), run in this process (`with_bug`)."""


def test_two_causes_shrunk_from_one_likely_bug_each_keep_their_shrunk_scenario(
    tmp_path: Path,
) -> None:
    """A likely bug counted in one cause, in which a second cause's bug
    shows after it: both causes were shrunk from it, each to a scenario of
    its own; the JSON and JUnit reports give both, each with its cause."""
    bug = Path("a.jsonl")
    step = Step(3, ("message", "views"), "event 3: views differ", ())
    found = Diagnosis(bug, "unexplained", steps=[step])
    message = {"event": "message", "kind": "user", "text": "x"}
    first, second = (Scenario(constants_dict(SMALL), [message] * n) for n in (3, 2))
    counted = Cause(Signature("views", "message"), ["a.jsonl"], "a.jsonl", first, 9, "one.jsonl")
    later = Cause(
        Signature("zoom", "zoom"), [], "a.jsonl", second, 9, "two.jsonl", after=["a.jsonl"]
    )
    trial = Trial(SPEC)
    report = Report("e", trial, trial, {}, [found], [found], 0.0, {bug: Coverage(4, 4)})
    report.causes = [later, counted]
    data = to_json_report(report)
    jsonschema.Draft202012Validator(DIAGNOSIS_SCHEMA, registry=SCHEMAS).validate(data)
    assert {c["id"]: c["shrunk"] for c in data["causes"]} == {
        counted.id: {"events": 3, "path": "one.jsonl"},
        later.id: {"events": 2, "path": "two.jsonl"},
    }
    # The likely bug's own: the one of the cause it is counted in.
    (scenario,) = data["scenarios"]
    assert scenario["shrunk"] == {"events": 3, "path": "one.jsonl"}
    write_junit(report, tmp_path / "d.xml")
    (case,) = ElementTree.parse(tmp_path / "d.xml").getroot().iter("testcase")
    said = (case.find("failure").text or "").splitlines()  # type: ignore[union-attr]
    assert [line for line in said if line.startswith("shrunk: ")] == [
        f"shrunk: one.jsonl (cause {counted.id})",
        f"shrunk: two.jsonl (cause {later.id})",
    ]
    lines, _ = text(report)
    assert sum("one.jsonl" in line for line in lines) == 2, lines  # shrunk to, replay it
    assert sum("two.jsonl" in line for line in lines) == 2, lines
    # Counted in a cause shrunk from another likely bug, only the later
    # cause shrunk from it: its own is none (not the later cause's).
    counted.representative = "b.jsonl"
    (scenario,) = to_json_report(report)["scenarios"]
    assert scenario["shrunk"] is None


def test_a_likely_bug_whose_replay_faults_while_it_is_named_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A likely bug (a zoom's halves newest first, in zoom_1) whose
    replay, made to name it as `corpus` names a FAIL, faults: it is said
    beside it in every report, and the run exits 2 (an engine fault), not 1
    as if it had been named."""
    from bridge.runs import diagnose

    named = diagnose.check_all

    def faulting(*args: Any, **kwargs: Any) -> Any:
        for verdict in named(*args, **kwargs):
            yield replace(verdict, status="FAULT", reason="engine crashed\nat event 3")

    monkeypatch.setattr(diagnose, "check_all", faulting)
    in_process(
        monkeypatch, lambda spec: with_bug(spec, "planted", "zoom") if spec == ZOOM else None
    )
    path = CORPUS / "zoom_1.jsonl"
    reports = ["--json", str(tmp_path / "d.json"), "--junit-xml", str(tmp_path / "d.xml")]
    code = cli.main(
        ["diagnose", str(path), "--engine", ZOOM, "--jobs", "1", "--shrink-tries", "1"]
        + ["--regressions", str(tmp_path), *reports]
    )
    out = capsys.readouterr().out
    assert code == 2, out
    said = "not named: replayed again to be named, it ended FAULT: engine crashed; "
    assert f"       {said}grouped apart, not shrunk" in out.splitlines(), out
    assert out.splitlines()[-1].startswith("1 LIKELY BUG, in 1 scenario (1 NOT NAMED: "), out
    data = valid(tmp_path / "d.json")
    assert data["unnamed"] == [
        {"scenario": path.name, "status": "FAULT", "reason": "engine crashed"}
    ]
    assert data["verdict"]["exit_code"] == 2
    (case,) = ElementTree.parse(tmp_path / "d.xml").getroot().iter("testcase")
    assert said in (case.find("failure").text or "")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ('{"profile": {}}', 'not {"profile": {...}, "capabilities": [...]}, as diagnose prints it'),
        ('{"profile": {"free_leaves": "later"}, "capabilities": []}', "the proposal: free_leaves "),
        ('{"profile": {}, "capabilities": ["warp"]}', "the proposal: unknown capability 'warp'"),
        ("[1,", "not JSON: "),
        ("no-such-proposal.json", "[Errno 2] No such file or directory"),
    ],
)
def test_a_proposal_that_is_not_one_is_one_line_and_exit_2(
    given: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compare --proposal` reads what diagnose prints; anything else is
    a usage error in one line that names it and the problem."""
    code = cli.main(["compare", "empty_chat", "--engine", "impl", "--proposal", given])
    said = capsys.readouterr()
    assert code == 2 and said.out == ""
    assert said.err.startswith(f"optchat-spec compare: --proposal {given}: {problem}"), said.err
    assert said.err.count("\n") == 1


def test_a_proposal_longer_than_a_file_name_is_read_as_given(tmp_path: Path) -> None:
    """diagnose prints its proposal as one JSON text, often longer than a
    file's name may be; `--proposal` reads it as given, and from a file
    holding it alike."""
    profile = {"calls": "self", "kind_words": {"user": "U", "unii": "A"}, "retry": "tick"}
    profile |= {"zoom_one": "headed", "zoom_unbuilt": "refused", "tolerance": 1.5, "cut": "word"}
    profile |= {"ellipsis": "...", "overlong": "kept", "given_line": "reply", "trim_lines": True}
    proposal = {"profile": profile, "capabilities": ["replies", "zoom"]}
    given = json.dumps(proposal)
    assert len(given) > os.pathconf(tmp_path, "PC_NAME_MAX")
    read = usage.read_proposal(given)
    assert read is not None and to_json(read[0]) == to_json(SPEC) | profile
    assert read[1] == frozenset(proposal["capabilities"])
    (tmp_path / "p.json").write_text(given)
    assert usage.read_proposal(str(tmp_path / "p.json")) == read


def test_a_run_stopped_counts_its_likely_bugs_as_causes_and_names_no_empty_list() -> None:
    """A run stopped once every scenario was followed: its last line counts
    the likely bugs as causes (two scenarios of one bug are one likely bug),
    and it names no scenario left unfollowed where none was."""
    bugs = [Path(f"{n}.jsonl") for n in "ab"]
    found = [
        Diagnosis(p, "unexplained", steps=[Step(3, ("message", "views"), "e", ())]) for p in bugs
    ]
    trial = Trial(SPEC)
    report = Report("e", trial, trial, {}, found, found, 0.0, {p: Coverage(4, 4) for p in bugs})
    report.causes = [Cause(Signature("views", "message"), ["a.jsonl", "b.jsonl"], "a.jsonl")]
    report.stopped = "interrupted"
    lines, code = text(report)
    assert code == 2
    assert lines[-1].startswith(
        "STOPPED (interrupted) before the end, no verdict: 1 likely bug (in 2 scenarios) in "
    ), lines[-1]
    assert (
        "STOPPED (interrupted) before the end: what follows is from the scenarios that were"
        in lines
    )
    assert not any("()" in line for line in lines), lines
