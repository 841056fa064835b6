"""`corpus` groups its FAILs into causes (issues 34, 40): an example engine
with two planted bugs gives two causes, one named by the rule slip that
explains it, each with the scenarios of its bug, one of them seen in
scenarios whose first differing fields differ (a batch's size, its
merges); each cause's representative is
shrunk and written, and the text, JSON, JUnit and HTML reports say the
causes. Which bug each cause is, is checked apart from the grouping: each
shrunk scenario fails on the engine with its bug alone and agrees with the
engine with the other bug alone."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

import bridge
from bridge import cli
from bridge.checking.causes import parse, read_known
from bridge.formats.invocation import command
from bridge.runs.corpus import Options, check
from bridge.wire.engine import Engine
from tests.bridge.helpers import NEVER, in_process, with_bug

ROOT = Path(__file__).resolve().parents[2]
PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'}"
REPORT_SCHEMA = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text())

FREE_LEAF = {
    "random_07": "cmerges",
    "refused_built_once_1": "cmerges",
    "both_jobs_bound_retry_waits": "size",
    "refused_retry_waits_1": "size",
}
"""Scenarios the free-leaf bug fails first (and the late cap not before it),
each with its first differing field: two fields of the views."""
LATE_CAP = ["random_23", "random_08", "refused_zoom_2", "refused_node_exists_0"]
"""Scenarios the late failure cap fails first."""
AGREE = ["empty_chat"]


@pytest.fixture(autouse=True)
def planted_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """`PLANTED NAME ...` runs in this process (`with_bug`)."""

    def engine(spec: str) -> Engine | None:
        if not spec.startswith(PLANTED):
            return None
        return with_bug(spec, "planted", *spec.removeprefix(PLANTED).split())

    in_process(monkeypatch, engine)


def corpus(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    # Not bounded by the replay's time: what a shrink keeps does not depend on load.
    budget = ["--shrink-seconds", NEVER]
    code = cli.main(["corpus", "--jobs", "1", *budget, *args])
    return code, capsys.readouterr().out


def test_two_planted_bugs_are_two_causes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    only = [arg for name in [*FREE_LEAF, *LATE_CAP, *AGREE] for arg in ("--only", name)]
    out_dir, regressions = tmp_path / "out", tmp_path / "found"
    reports = [
        *("--json", str(out_dir / "r.json"), "--junit-xml", str(out_dir / "j.xml")),
        *("--report", str(out_dir / "pages"), "--write-known-causes", str(out_dir / "k.txt")),
    ]
    engine = f"{PLANTED} free_leaf late_cap"
    code, out = corpus(
        capsys, *only, "--engine", engine, "--regressions", str(regressions), *reports
    )
    assert code == 1, out
    fails = len(FREE_LEAF) + len(LATE_CAP)
    assert f"{fails} FAIL from 2 causes:" in out
    last = out.splitlines()[-1]
    assert last.startswith("9 scenarios: ") and f"{fails} FAIL from 2 causes" in last, last
    for name, field in FREE_LEAF.items():
        assert re.search(rf"FAIL {name}.jsonl .*\n.*: {field} differs", out), name

    report = json.loads((out_dir / "r.json").read_text())
    jsonschema.validate(report, REPORT_SCHEMA)
    causes = {c["id"].split(":")[0]: c for c in report["causes"]}
    assert set(causes) == {"views@message", "slip"}
    views, line = causes["views@message"], causes["slip"]
    # The late cap is named by the rule slip that builds a node at the
    # FAILURES + 1-th failure (SPEC 4, `<` read as `<=`, as the plant has
    # it); no slip explains the free leaf's.
    assert (line["slip"]["file"], line["slip"]["function"]) == ("model/machine.py", "_failed")
    assert line["slip"]["after"] == "failed <= state.constants.failures"
    assert views["slip"] is None and "no rule slip explains it" in views["said"]
    assert sorted(Path(p).stem for p in views["scenarios"]) == sorted(FREE_LEAF)
    assert sorted(Path(p).stem for p in line["scenarios"]) == sorted(LATE_CAP)
    cause_of = {Path(c["path"]).stem: c["cause"] for c in report["scenarios"]}
    assert cause_of == {
        **{name: views["id"] for name in FREE_LEAF},
        **{name: line["id"] for name in LATE_CAP},
        "empty_chat": None,
    }
    for cause in (views, line):
        assert cause["shrunk_events"] <= cause["events_before"]
        assert f"{cause['id']}: {len(cause['scenarios'])} scenarios" in out
        assert f"replay it: {sys.executable} -m bridge compare {cause['shrunk']}" in out
    assert views["keeps"][0] == "message" and views["kind"] in views["keeps"]
    # The verdict comes before any shrink, and again last.
    assert out.index("verdict before shrinking: 9 scenarios") < out.index("shrunk from")

    suite = ET.parse(out_dir / "j.xml").getroot()
    said = [(p.get("name"), p.get("value") or "") for p in suite.find("properties") or []]
    assert ("causes", "2") in said
    assert sorted(v.split(": ")[0] for n, v in said if n == "cause") == sorted(causes_ids(report))
    for case in suite.iter("testcase"):
        named = [p.get("value") for p in case.iter("property") if p.get("name") == "cause"]
        assert named == ([cause_of[case.get("name", "")]] if cause_of[case.get("name", "")] else [])

    index = (out_dir / "pages" / "index.html").read_text()
    assert f"<h2>{fails} FAIL from 2 causes</h2>" in index
    assert all(f"<code>{cause_id}</code>" in index for cause_id in causes_ids(report))
    assert read_known(out_dir / "k.txt") == [parse(i) for i in causes_ids(report)]
    first = (out_dir / "k.txt").read_text().splitlines()[0]
    assert f"({command()} fuzz --known-causes)" in first, "the hint names the runner as started"

    # Each shrunk scenario is its own bug's: it fails on that bug alone, and
    # agrees with the engine that has only the other bug.
    shrunk = [views["shrunk"], line["shrunk"]]
    assert sorted(p.name for p in (regressions / "scenarios").glob("*.jsonl")) == sorted(
        Path(p).name for p in shrunk
    )
    # Each checked as `corpus` checks a scenario (no grouping: only the FAILs are read).
    for bug, fails_there in (("free_leaf", views["shrunk"]), ("late_cap", line["shrunk"])):
        alone = Options(f"{PLANTED} {bug}", quiet=True)
        statuses = {p: check(Path(p), alone).status for p in shrunk}
        assert statuses == {p: "FAIL" if p == fails_there else "ok" for p in shrunk}, bug


def causes_ids(report: dict[str, object]) -> list[str]:
    return [cause["id"] for cause in report["causes"]]  # type: ignore[attr-defined, index]
