"""The runner checked like the engine (issue 33): for each thing `corpus`
compares or counts, an engine wrong in that one thing
(tests/cli/engines/wrong.py) must FAIL, exit 1, and say so in the text, the
JSON report and the JUnit report alike; and a run that compared nothing, or
less than `--min-compared`, is not green, here and when shards are merged.

Each field is made wrong on a scenario of ten events where every answer
field appears (`FIELDS`); a wrong is seen at the first answer holding the
field. The first divergence named is the wrong field: SPEC and the
protocol say what each field must be, and the engine is the reference
engine but for that field. Every run is one engine process, in this
process's runner (`corpus --jobs 1`), on scenarios of a few events: the
laws/mutants.py runner breaks run single tests of this file."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import run, wrong

CONSTANTS = {
    "node": 16,
    "ceiling": 20,
    "floor": 10,
    "cceiling": 20,
    "cfloor": 10,
    "jobs": 2,
    "ahead": 2,
    "tries": 3,
    "failures": 2,
    "retry": 10,
    "settle_timeout": 20,
    "tool_cap": 300,
}
"""NODE 16: a message of a few bytes is a free leaf, one of 20 needs a call;
CEILING 20: the third message of 8 bytes makes a batch."""

FIELDS: list[dict[str, Any]] = [
    {"event": "message", "kind": "user", "text": "aa"},
    {"event": "message", "kind": "user", "text": "bb"},
    {"event": "start", "node": [1, 0]},
    {"event": "end", "node": [1, 0], "line": "ab "},
    {"event": "message", "kind": "user", "text": "c\rc"},
    {"event": "zoom", "id": 0, "n": 1},
    {"event": "wait"},
    {"event": "timeout"},
    {"event": "message", "kind": "user", "size": 20},
    {"event": "settle", "refused": "settle_needs_wait"},
]
"""Every answer field, by SPEC: the two leaves are free (SPEC 2: lines of 8
bytes, under NODE), so (1, 0) is a ready merge and its call may start
(SPEC 4) and end with the line `ab ` (installed as given, its trailing
space kept: SPEC 5, 10); the third message takes the view to 24 bytes,
over CEILING, and its batch merges the two leaves into (1, 0) (SPEC 3.3):
`merges`, the whole views, the render's and contexts' CRCs; its `\\r` is a
space in the render (SPEC 3). Then a zoom (SPEC 3.5), a wait that times
out (SPEC 4: `render_timed_out_crc`), a message of 20 bytes whose leaf
waits for a call (`queue`, `queue_waiting`, and in the detail a context),
and a settle with no turn waiting, refused as `settle_needs_wait` (SPEC
4.1). The detail holds the render `0+2|ab \\n2+1|user: c c\\n...`."""

# (how the engine is wrong, the field the first divergence names, its position;
# `started`: under `calls: self`, where the engine starts (1, 0) itself after event 1)
WRONGS = [
    ("size", "size", 0),
    ("shrinking", "shrinking", 0),
    ("shrinking-int", "shrinking", 0),
    ("merges", "merges", 4),
    ("cmerges", "cmerges", 0),
    ("view_digest", "view_digest", 0),
    ("cview_digest", "cview_digest", 0),
    ("queue", "queue", 1),
    ("queue_waiting", "queue_waiting", 8),
    ("refused", "refused", 9),
    ("refused-rule", "refused", 9),
    ("refused-spurious", "refused", 0),
    ("line", "line", 3),
    ("line-stripped", "line", 3),
    ("zoom", "zoom", 5),
    ("render_timed_out_crc", "render_timed_out_crc", 7),
    ("view", "view", 4),
    ("cview", "cview", 4),
    ("render_crc", "render_crc", 4),
    ("contexts_crc", "contexts_crc", 4),
    ("started", "started", 1),
    ("render", "render", None),
    ("render-trailing-space", "render", None),
    ("render-final-newline", "render", None),
    ("render-cr", "render", None),
    ("render-cut", "render", None),
    ("render_timed_out", "render_timed_out", None),
    ("contexts", "contexts", None),
    ("extra-field", "surplus", 0),
]


def write(folder: Path, name: str, events: list[dict[str, Any]], **header: Any) -> Path:
    """A scenario file of `events` (format 2, `CONSTANTS`, `header` added)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    head = {"format": "optchat-scenario/2", "generator": "test", "seed": 1}
    head |= {"constants": CONSTANTS, **header}
    path.write_text("\n".join(json.dumps(line) for line in (head, *events)) + "\n")
    return path


QUICK = ["--jobs", "1", "--shrink-tries", "0", "--shrink-seconds", "0.001"]
"""One engine process in this one, no cause shrunk, and no time to try the
model's rule slips on a FAIL: what these tests read is the divergence and
how it is counted, never what explains it."""


def corpus(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str], dict[str, Any], ET.Element]:
    """`corpus ARGS` with both reports: its exit code, its lines, the JSON
    report and the JUnit test suite."""
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    code, out, _ = run(
        ["corpus", *args, *QUICK, "--json", str(report), "--junit-xml", str(junit)], capsys
    )
    return code, out.splitlines(), json.loads(report.read_text()), ET.parse(junit).getroot()


def assert_fails(
    lines: list[str],
    report: dict[str, Any],
    suite: ET.Element,
    name: str,
    field: str,
    position: int | None,
) -> None:
    """Scenario `name` FAILs at `field` (at event `position`, None for the
    final detail request) in the text, the JSON report and the JUnit report."""
    head = next(k for k, line in enumerate(lines) if f" {name}.jsonl " in line)
    assert lines[head].split()[1] == "FAIL", lines[head]
    where = "the final detail request" if position is None else f"event {position} "
    assert lines[head + 1].strip().startswith(where), lines[head + 1]
    assert f": {field} differs, expected " in lines[head + 1], lines[head + 1]
    (case,) = [c for c in report["scenarios"] if c["scenario"] == f"{name}.jsonl"]
    assert case["status"] == "FAIL"
    assert (case["divergence"]["field"], case["divergence"]["position"]) == (field, position)
    (test,) = [c for c in suite.iter("testcase") if c.get("name") == name]
    failure = test.find("failure")
    assert failure is not None and f": {field} differs" in failure.get("message", "")
    assert int(suite.get("failures", "0")) >= 1


def assert_red(code: int, report: dict[str, Any], suite: ET.Element) -> None:
    """Exit 1, and both reports say the run's verdict is 1."""
    assert code == 1
    assert report["verdict"]["exit_code"] == 1
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert said["exit_code"] == "1"


@pytest.mark.parametrize(("how", "field", "position"), WRONGS, ids=[w[0] for w in WRONGS])
def test_an_engine_wrong_in_one_field_fails_there(
    how: str, field: str, position: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "s", "fields", FIELDS)
    code, lines, report, suite = corpus([str(path), "--engine", wrong(how)], tmp_path, capsys)
    assert_red(code, report, suite)
    assert_fails(lines, report, suite, "fields", field, position)
    assert lines[-1].startswith("1 scenario: 1 FAIL from 1 cause; compared ")


def test_the_right_engine_and_its_own_fields_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: the reference engine, and one adding `x-` fields of its
    own, agree on `FIELDS`: what the wrong engines fail on is theirs."""
    path = write(tmp_path / "s", "fields", FIELDS)
    for engine in ("reference", wrong("x-field")):
        code, lines, report, suite = corpus([str(path), "--engine", engine], tmp_path, capsys)
        assert code == 0 and report["verdict"]["exit_code"] == 0, lines
        assert lines[-1].startswith("THE ONE SCENARIO AGREES; compared 1.0000 of the events")
        assert suite.get("failures") == "0" and report["counts"] == {"ok": 1}


def test_the_last_event_of_a_file_without_a_final_newline_is_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refusal at the last line, with no newline after it, is compared: an
    engine that does not refuse fails there."""
    path = write(tmp_path / "s", "unended", FIELDS)
    path.write_bytes(path.read_bytes().removesuffix(b"\n"))
    code, lines, report, suite = corpus([str(path), "--engine", wrong("refused")], tmp_path, capsys)
    assert_red(code, report, suite)
    assert_fails(lines, report, suite, "unended", "refused", len(FIELDS) - 1)
    assert report["coverage"]["events"] == len(FIELDS)


def test_events_after_one_withheld_for_a_lacking_capability_are_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine without zoom is not sent the zoom (event 5), and is wrong
    from the next event it is sent on: that is a FAIL at event 6."""
    path = write(tmp_path / "s", "withheld", FIELDS)
    code, lines, report, suite = corpus(
        [str(path), "--engine", wrong("after-gap")], tmp_path, capsys
    )
    assert_red(code, report, suite)
    assert_fails(lines, report, suite, "withheld", "size", 6)
    assert report["coverage"]["not_implemented"][0]["events_not_sent"] == 1


def test_relative_events_are_sent_and_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A version 3 scenario whose call is named relative to the state: the
    start of the first candidate and the end of the first running call are
    sent as (0, 0)'s (scenarios/README.md), and an engine wrong in an
    end's line fails at that end."""
    events = [
        {"event": "message", "kind": "user", "size": 20},
        {"event": "start", "candidate": 0},
        {"event": "end", "running": 0, "line": "x"},
    ]
    path = write(tmp_path / "s", "relative", events, format="optchat-scenario/3")
    code, lines, report, suite = corpus([str(path), "--engine", wrong("line")], tmp_path, capsys)
    assert_red(code, report, suite)
    assert_fails(lines, report, suite, "relative", "line", 2)


def test_an_unsupported_event_is_skipped_never_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine that answers an event `unsupported` has that scenario
    SKIPPED; a run of nothing else compared nothing, and is red. Every
    event of it counts as SKIPPED, those after the window of lines the
    runner had sent ahead (64) too."""
    events = FIELDS + [{"event": "message", "kind": "user", "text": "x"}] * 70
    path = write(tmp_path / "s", "fields", events)
    code, lines, report, suite = corpus(
        [str(path), "--engine", wrong("unsupported")], tmp_path, capsys
    )
    assert_red(code, report, suite)
    assert report["scenarios"][0]["status"] == "SKIPPED"
    assert lines[-1].startswith(f"NOTHING COMPARED: 0 of {len(events)} events; 1 scenario: ")
    assert report["verdict"]["summary"] == lines[-1]
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["fields"].find("skipped") is not None
    assert cases["events compared"].find("failure") is not None


def test_a_run_that_compared_nothing_is_red_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every scenario refused at its header: NOTHING COMPARED, exit 1, in
    the text's last line, the JSON verdict and a failing JUnit test case."""
    folder = tmp_path / "s"
    write(folder, "one", FIELDS)
    write(folder, "two", FIELDS[:2])
    code, lines, report, suite = corpus([str(folder), "--engine", wrong("skip")], tmp_path, capsys)
    assert_red(code, report, suite)
    said = f"NOTHING COMPARED: 0 of {len(FIELDS) + 2} events; 2 scenarios: 2 SKIPPED"
    assert lines[-1].startswith(said) and report["verdict"]["summary"] == lines[-1]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "2")


def test_a_run_below_its_floor_is_red_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine without zoom compares 9 of the 10 events: 0.9000, green at
    --min-compared 0.9 and red above it."""
    path = write(tmp_path / "s", "fields", FIELDS)
    engine = [str(path), "--engine", wrong("x-field"), "--capabilities", "settle_timeout"]
    code, lines, report, suite = corpus([*engine, "--min-compared", "0.9"], tmp_path, capsys)
    assert code == 0 and report["min_compared"] == 0.9, lines
    assert "; compared 0.9000 of the events, at least 0.9 asked " in lines[-1]
    code, lines, report, suite = corpus([*engine, "--min-compared", "0.91"], tmp_path, capsys)
    assert_red(code, report, suite)
    assert lines[-1].startswith("BELOW --min-compared 0.91: compared 0.9000 of the events; ")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["fields"].find("failure") is None
    assert cases["events compared"].find("failure") is not None


LIMITED = Path(__file__).parents[1] / "bridge" / "engines" / "limited.py"
"""An engine that refuses, as unsupported, a header with CEILING under 8 x
NODE or FLOOR under 4 x NODE, without declaring it: fuzz draws such
histories, and they are SKIPPED."""


def fuzz(
    engine: str, floor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str]]:
    """`fuzz` on 3 histories of seed 1 (one the limited engine takes, two it
    refuses) held to `--min-compared floor`: its exit code and its lines."""
    args = ["fuzz", "--engine", engine, "--seed", "1", "--histories", "3"]
    args += ["--min-compared", floor, "--regressions", str(tmp_path)]
    code, out, _ = run(args, capsys)
    return code, out.splitlines()


def test_a_fuzz_run_that_compared_nothing_or_too_little_is_red(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """fuzz's verdict is over every history it searched: an engine that
    refuses every header compared nothing (exit 1, NOTHING COMPARED); one
    that refuses some histories compared the fraction its last line states
    when held to a floor above it (exit 1, BELOW), and is green held to
    that figure."""
    monkeypatch.delenv("OPTCHAT_DATABASE", raising=False)
    code, lines = fuzz(wrong("skip"), "0", tmp_path, capsys)
    assert code == 1 and lines[-1].startswith("NOTHING COMPARED: 0 of "), lines
    assert lines[-1].endswith(" events generated (3 histories SKIPPED)")
    engine = f"{sys.executable} {LIMITED}"
    code, lines = fuzz(engine, "0.99", tmp_path, capsys)
    assert code == 1 and lines[-1].startswith("BELOW --min-compared 0.99: compared 0."), lines
    said = re.search(r"compared (0\.\d{4}) of the events", lines[-1])
    assert said is not None and " histories SKIPPED)" in lines[-1]
    code, lines = fuzz(engine, said[1], tmp_path, capsys)
    assert code == 0, lines
    assert f"; compared {said[1]} of the events, at least {float(said[1]):g} asked;" in "\n".join(
        lines
    )


def test_known_failures_match_exactly_by_status_and_the_list_never_grows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`one` listed: it fails as listed, but `one_more` (its name starts
    with `one`) is not listed, and its FAIL fails the run. Listed as a skip,
    `one`'s FAIL is a FAIL. A list written from a run given that list keeps
    what still fails as listed, and adds nothing."""
    folder = tmp_path / "s"
    write(folder, "one", FIELDS)
    write(folder, "one_more", FIELDS)
    listed = tmp_path / "known.txt"
    engine = [str(folder), "--engine", wrong("size"), "--known-failures", str(listed)]
    listed.write_text("one\n")
    code, lines, report, suite = corpus(engine, tmp_path, capsys)
    assert_red(code, report, suite)
    assert {c["scenario"]: c["status"] for c in report["scenarios"]} == {
        "one.jsonl": "expected failure",
        "one_more.jsonl": "FAIL",
    }
    assert_fails(lines, report, suite, "one_more", "size", 0)
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["one"].find("skipped") is not None and cases["one"].find("failure") is None
    listed.write_text("one skip\none_more skip\n")
    code, lines, report, suite = corpus(engine, tmp_path, capsys)
    assert_red(code, report, suite)
    assert_fails(lines, report, suite, "one", "size", 0)
    assert_fails(lines, report, suite, "one_more", "size", 0)
    listed.write_text("one\n")
    code, lines, report, suite = corpus(
        [*engine, "--write-known-failures", str(listed)], tmp_path, capsys
    )
    assert_red(code, report, suite)
    assert [line.split() for line in listed.read_text().splitlines()[1:]] == [["one", "fail"]]


def test_shards_merge_into_the_verdict_of_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shard compares 9 of its 10 events (no zoom): a shard leaves its
    floor to the merged report, which holds 18 of 20 to it, in JSON and in
    JUnit alike; a FAIL in one shard, or shards that compared nothing, make
    the merged run red."""
    folder = tmp_path / "s"
    write(folder, "a", FIELDS)
    write(folder, "b", FIELDS)
    no_zoom = ["--capabilities", "settle_timeout"]

    def merged(engine: str, *more: str) -> list[tuple[int, str]]:
        """Both shards' runs, then their JSON and their JUnit reports merged:
        each merge's exit code and last line."""
        inputs: dict[str, list[str]] = {"json": [], "xml": []}
        for k in (1, 2):
            shard = tmp_path / f"shard-{k}"
            shard.mkdir(exist_ok=True)
            args = [str(folder), "--engine", engine, *more, "--shard", f"{k}/2"]
            code, lines, _, _ = corpus(args, shard, capsys)
            assert "(merge-reports judges the whole run's)" in lines[-1]
            inputs["json"].append(str(shard / "report.json"))
            inputs["xml"].append(str(shard / "report.xml"))
        said = []
        for kind, shards in inputs.items():
            code, out, _ = run(["merge-reports", str(tmp_path / f"all.{kind}"), *shards], capsys)
            said.append((code, out.splitlines()[-1]))
        return said

    for code, last in merged(wrong("x-field"), *no_zoom, "--min-compared", "0.9"):
        assert code == 0 and "; compared 0.9000 of the events, at least 0.9 asked " in last
    for code, last in merged(wrong("x-field"), *no_zoom, "--min-compared", "0.95"):
        assert code == 1 and last.startswith("BELOW --min-compared 0.95: compared 0.9000 ")
    report = json.loads((tmp_path / "all.json").read_text())
    assert report["verdict"] == {"exit_code": 1, "summary": last} and report["shard"] is None
    suite = ET.parse(tmp_path / "all.xml").getroot()
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["events compared"].find("failure") is not None
    for code, last in merged(wrong("skip")):
        assert code == 1 and last.startswith("NOTHING COMPARED: 0 of 20 events; ")
    for code, last in merged(wrong("size")):
        assert code == 1 and last.startswith("2 scenarios: 2 FAIL from 1 cause; compared ")


def test_delivery_counts_the_events_never_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under `calls: self` with JOBS 1 the engine starts (0, 0) itself and
    nothing else while it runs: the scenario's start is the engine's to make
    (not owed), and its end of (0, 1), whose call never starts, is never
    sent. So 2 of the 3 events owed are delivered: in the text, the JSON and
    the JUnit report alike (PROTOCOL.md, "Engines that start their own calls")."""
    events = [
        {"event": "message", "kind": "user", "size": 20},
        {"event": "message", "kind": "user", "size": 20},
        {"event": "start", "node": [0, 0]},
        {"event": "end", "node": [0, 1], "line": "x"},
    ]
    path = write(tmp_path / "s", "held", events, constants={**CONSTANTS, "jobs": 1})
    profile = tmp_path / "self.json"
    profile.write_text('{"calls": "self"}')
    args = [str(path), "--engine", "impl", "--profile", str(profile)]
    code, lines, report, suite = corpus(args, tmp_path, capsys)
    assert code == 0, lines
    assert "note: 1 events never sent (an outcome whose call never started" in "\n".join(lines)
    assert "delivered 2 of 3 events under the profile (66.7 %)" in lines[-2]
    assert report["coverage"]["delivery"] == {
        "events": 3,
        "delivered": 2,
        "fraction": 0.666667,
        "scenarios": 1,
    }
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (said["events_to_deliver"], said["events_delivered"]) == ("3", "2")
