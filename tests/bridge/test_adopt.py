"""Seeing past a difference (issue 44, bridge/checking/adopt.py): the
flattening example engine (tests/bridge/engines/flattening.py: lines
installed flattened, sizes measured with each row's head, a batch at a
build) stops every replay at its first event or two; `--keep-going`
adopts its values and compares most of the events, each marked as compared
after adoption; with a real bug planted as well, the divergence after
adoption is still found and reported so. A value that breaks SPEC's own
rules (a line over LINE bytes, a view that does not tile the chat) is never
adopted."""

from __future__ import annotations

import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import bridge.cli as cli
from bridge.checking.adopt import Shadow
from bridge.checking.coverage import Coverage
from bridge.formats.kit import CORPUS
from bridge.wire.inprocess import ModelEngine
from model.profile import Profile
from scenarios.format import Scenario
from tests.bridge.helpers import REPORTS

ROOT = Path(__file__).resolve().parents[2]
FLATTENING = Path(__file__).parent / "engines" / "flattening.py"
ENGINE = f"{shlex.quote(sys.executable)} {shlex.quote(str(FLATTENING))}"
SAMPLE = ("refused_jobs_bound_0", "random_08", "zoom_0")
"""Small scenarios (2,814 events) whose texts hold `\\r\\n` (so each
difference shows), with batches, failures and zooms; in random_08 the
compaction view alone merges otherwise after the chat view's size was
adopted (a view taken keeps the size the engine measures)."""


@pytest.fixture
def engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol engines run as scripts find the project's packages."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def corpus(
    tmp_path: Path, engine: str, *more: str, names: tuple[str, ...] = SAMPLE
) -> tuple[int, dict[str, Any], Path]:
    """A corpus run of `names`: its exit code, JSON report and JUnit file
    (neither shrunk nor a rule slip tried after the replay: no cause is read)."""
    report, junit = tmp_path / "run.json", tmp_path / "run.xml"
    paths = [str(CORPUS / f"{name}.jsonl") for name in names]
    outputs = ["--json", str(report), "--junit-xml", str(junit), "--shrink-tries", "0"]
    outputs += ["--shrink-seconds", "0.001"]
    code = cli.main(["corpus", *paths, "--engine", engine, "--jobs", "1", *outputs, *more])
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    REPORTS.validate(data)
    return code, data, junit


def test_keep_going_compares_most_events_past_the_early_differences(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, _ = corpus(tmp_path, ENGINE)
    assert code == 1
    assert data["coverage"]["compared"] / data["coverage"]["events"] < 0.01
    assert data["coverage"]["adoption"] == {"compared": 0, "fraction": 0.0, "fields": {}}

    code, data, junit = corpus(tmp_path, ENGINE, "--keep-going")
    out = capsys.readouterr().out
    assert code == 1  # each difference is still reported where it first shows
    coverage = data["coverage"]
    assert coverage["compared"] / coverage["events"] > 0.9
    assert coverage["adoption"]["fraction"] > 0.9
    assert {"line", "size", "view"} <= set(coverage["adoption"]["fields"])
    for scenario in data["scenarios"]:
        assert scenario["status"] == "FAIL"
        assert scenario["divergence"]["adopted"] is True
        assert scenario["after_adoption"] is None
    assert [past["after_adoption"] for past in data["beyond"]] == [[]]
    assert data["beyond"][0]["adopted"] == len(SAMPLE)
    said = re.search(r"compared (\S+) of the events, (\S+) after adoption", out.splitlines()[-1])
    assert said is not None and float(said[1]) >= float(said[2]) > 0.9
    assert out.count("checked beyond it: 0.9") == 1
    by_case = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(junit).getroot().iter("testcase")
    }
    for scenario in data["scenarios"]:
        said = by_case[scenario["scenario"].removesuffix(".jsonl")]
        assert said["compared_after_adoption"] == str(scenario["coverage"]["adoption"]["compared"])


def test_declaring_its_three_options_checks_it_with_no_adoption(
    tmp_path: Path, engine_path: None
) -> None:
    """SPEC 10 has an option for each of its differences now: declared, they
    check the engine on every event; with `batches` left SPEC's, the batch
    an `end` ran is a divergence."""
    three = {"flat_lines": True, "row_sizes": True, "batches": "builds"}
    declares = f"{ENGINE} --declares {shlex.quote(json.dumps(three))}"
    code, data, _ = corpus(tmp_path, declares, names=SAMPLE[:1])
    assert code == 0, data["scenarios"]
    assert data["coverage"]["compared"] == data["coverage"]["events"] > 0
    assert data["coverage"]["adoption"]["compared"] == 0
    two = {"flat_lines": True, "row_sizes": True}
    code, data, _ = corpus(
        tmp_path, f"{ENGINE} --declares {shlex.quote(json.dumps(two))}", names=SAMPLE[:1]
    )
    divergence = data["scenarios"][0]["divergence"]
    assert code == 1 and divergence["field"] in ("size", "merges", "shrinking"), divergence


def test_a_bug_after_an_adopted_difference_is_caught_and_marked(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, junit = corpus(tmp_path, f"{ENGINE} --bug", "--keep-going", names=SAMPLE[:1])
    out = capsys.readouterr().out
    assert code == 1
    after = [s["after_adoption"] for s in data["scenarios"] if s["after_adoption"]]
    assert after, "the planted AHEAD bug is found past the adopted differences"
    assert all(a["after_adoption"] and a["field"] == "queue" for a in after)
    assert {s["scenario"] for s in data["scenarios"] if s["after_adoption"]} <= set(
        data["beyond"][0]["after_adoption"]
    )
    assert "DIVERGENCE AFTER ADOPTION in" in out
    names = {p.get("name") for p in ET.parse(junit).getroot().iter("property")}
    assert {"after_adoption", "compared_after_adoption"} <= names


def small() -> Scenario:
    """Two messages, a call started on the first and ended: enough for a line and a view."""
    events = [
        {"event": "message", "kind": "user", "text": "x" * 100},
        {"event": "start", "node": [0, 0]},
        {"event": "end", "node": [0, 0], "line": "a\r\nb"},
    ]
    constants = {"node": 64, "ceiling": 1_000, "floor": 500, "cceiling": 500, "cfloor": 250}
    return Scenario(constants=constants, events=events)


def shadow_before(scenario: Scenario, k: int) -> Shadow:
    """A shadow fed the scenario's first `k` events, then asked the next."""
    lines = [{**e, "at": n} for n, e in enumerate(scenario.events)]
    shadow = Shadow(Profile(), scenario, (), lines[:k])
    shadow.answer(lines[k])
    return shadow


def test_a_flattened_line_is_adopted_and_the_model_builds_it() -> None:
    scenario = small()
    shadow = shadow_before(scenario, 2)
    expected = shadow.expected
    assert expected["line"] == "a\r\nb"
    found = {**expected, "line": "a  b"}
    again = shadow.adopt({**scenario.events[2], "at": 2}, expected, found)
    assert again is not None and again["line"] == "a  b"
    detail = shadow.model.answer({"detail": True})
    reference = ModelEngine(Profile())
    reference.start(scenario)
    for n, event in enumerate(scenario.events[:2]):
        reference.answer({**event, "at": n})
    reference.answer({"event": "end", "node": [0, 0], "line": "a  b", "at": 2})
    assert detail == reference.answer({"detail": True})


def test_what_breaks_spec_is_not_adopted() -> None:
    scenario = small()
    shadow = shadow_before(scenario, 2)
    expected = shadow.expected
    line = {**scenario.events[2], "at": 2}
    too_long = {**expected, "line": "y" * 65}
    assert shadow.adopt(line, expected, too_long) is None
    untiled = {**expected, "merges": [[1, 0]], "view": [[1, 0]], "view_digest": 1}
    assert shadow.adopt(line, expected, untiled) is None
    hostile = {**expected, "merges": [[10**9, 0]], "view": [[10**9, 0]]}
    assert shadow.adopt(line, expected, hostile) is None
    refused = {**expected, "refused": "line_fits"}
    assert shadow.adopt(line, expected, refused) is None


def test_a_line_chosen_from_replies_is_adopted_only_at_the_models_size() -> None:
    scenario = small()
    ended = {"event": "end", "node": [0, 0], "replies": [{"text": "a\r\nb"}]}
    scenario = Scenario(constants=scenario.constants, events=[*scenario.events[:2], ended])
    shadow = shadow_before(scenario, 2)
    expected = shadow.expected
    assert expected["line"] == "a\r\nb"
    line = {**ended, "at": 2}
    assert shadow.adopt(line, expected, {**expected, "line": "a b"}) is None
    again = shadow.adopt(line, expected, {**expected, "line": "a  b"})
    assert again is not None and again["line"] == "a  b"


def test_a_coverage_after_adoption_is_read_back_and_said() -> None:
    counted = Coverage(10, 9, adopted=5, adoptions=Counter({"line": 3, "size": 5}))
    assert Coverage.from_json(counted.to_json()) == counted
    assert "5 of them after adoption (50.0 %; adopted: line in 3, size in 5)" in counted.summary()
    assert counted.compared_said(0) == "compared 0.9000 of the events, 0.5000 after adoption"
    assert "after adoption" not in Coverage(10, 9).compared_said(0)
