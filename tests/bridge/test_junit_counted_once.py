"""The JUnit report says the FAILs that show two causes' bugs, counted once
(bridge/outputs/junit.py, bridge/outputs/merge.py), as the run's last line
and its JSON report do: each such FAIL's test case names the other cause
(`second_cause`), so that `merge-reports` of the shards' JUnit reports
says `(N showing two causes' bugs, counted once)` as one run does. The
engine: planted.py's free leaf queued and zoom newest first, in this
process, under a spec an XML report must escape; on two scenarios, in one
of which the zoom's bug shows after the free leaf's (one cause's FAIL,
listed in the zoom's cause too)."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.bridge.helpers import in_process, with_bug
from tests.bridge.test_corpus_cli import copy_corpus, run

ENGINE = f"{sys.executable} planted.py <queued_leaf & zoom> \"as 'said'\" \x07"
"""The spec: characters XML escapes, and one it cannot hold (written as its escape, `\\x07`)."""
NAMES = ["chooser_0", "zoom_1"]
SAID = "2 FAIL from 2 causes (1 showing two causes' bugs, counted once)"


def said(suite: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in suite.iterfind("properties/property")}


def seconds(suite: ET.Element) -> dict[str, list[str]]:
    """Each test case's `second_cause` properties, by scenario."""
    return {
        case.get("name", ""): [
            p.get("value", "")
            for p in case.iterfind("properties/property")
            if p.get("name") == "second_cause"
        ]
        for case in suite.iterfind("testcase")
    }


def test_the_fails_counted_once_are_said_in_junit_and_its_merge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    in_process(
        monkeypatch,
        lambda spec: with_bug(spec, "planted", "queued_leaf", "zoom") if spec == ENGINE else None,
    )
    folder = copy_corpus(tmp_path, NAMES)
    base = ["corpus", str(folder), "--engine", ENGINE, "--jobs", "1", "--shrink-tries", "0"]
    whole_json, whole_xml = tmp_path / "whole.json", tmp_path / "whole.xml"
    code, out = run([*base, "--json", str(whole_json), "--junit-xml", str(whole_xml)], capsys)
    assert code == 1 and SAID in out.splitlines()[-1], out
    whole = json.loads(whole_json.read_text())
    last = whole["verdict"]["summary"]
    assert ENGINE.removesuffix("\x07") in last
    one = ET.parse(whole_xml).getroot()
    last = last.replace("\x07", "\\x07")
    assert said(one)["verdict"] == last
    # The FAIL listed in the zoom's cause too names it; the other names none.
    (zoom,) = [c for c in whole["causes"] if c["after"]]
    assert [Path(p).stem for p in zoom["after"]] == ["zoom_1"]
    assert seconds(one) == {"chooser_0": [], "zoom_1": [zoom["id"]]}
    # Merged alone (a whole run is shard 1/1), its verdict is made again from its test cases.
    code, out = run(["merge-reports", str(tmp_path / "again.xml"), str(whole_xml)], capsys)
    assert code == 1 and out.splitlines()[-1] == last, out
    # The shards' JUnit reports merged say what their JSON reports merged say.
    parts = []
    for k in (1, 2):
        parts.append(tmp_path / f"shard-{k}.json")
        reports = ["--json", str(parts[-1]), "--junit-xml", str(parts[-1].with_suffix(".xml"))]
        code, _ = run([*base, "--shard", f"{k}/2", *reports], capsys)
        assert code == 1
    for suffix in (".json", ".xml"):
        shards = [str(p.with_suffix(suffix)) for p in parts]
        code, out = run(["merge-reports", str(tmp_path / f"all{suffix}"), *shards], capsys)
        assert code == 1
    joined = json.loads((tmp_path / "all.json").read_text())
    summary = joined["verdict"]["summary"]
    assert "(1 showing two causes' bugs, counted once)" in summary
    suite = ET.parse(tmp_path / "all.xml").getroot()
    assert said(suite)["verdict"] == summary.replace("\x07", "\\x07")
    assert seconds(suite) == {
        name: [c["id"] for c in joined["causes"] if any(Path(p).stem == name for p in c["after"])]
        for name in NAMES
    }
    text = (tmp_path / "all.xml").read_text()
    assert "&lt;queued_leaf &amp; zoom&gt;" in text and "\x07" not in text and "\\x07" in text
