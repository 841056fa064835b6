"""Words that mean what they say (issue 43): a scenario SKIPPED because the
engine lacks what it alone tests is counted under that capability ("zoom
(3 scenarios skipped)", not "none here") and keeps its family as its JUnit
class; listed SKIPPED scenarios are "skipped as the known failures say",
not "fail"; and a report says what an engine declares ("declares no
deviation"), never that it agrees, which only the verdict says."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import bridge.cli as cli
from bridge.formats.capabilities import CAPABILITIES
from bridge.formats.profile import agreement
from model.profile import Profile

ZOOMS = ("zoom_0", "zoom_1", "zoom_2")
"""Corpus scenarios made to test zoom alone."""

NO_ZOOM = ",".join(c.name for c in CAPABILITIES if c.name != "zoom")


def run(*more: str) -> None:
    """The model in process, declared without zoom, on ZOOMS and one more."""
    only = [a for name in (*ZOOMS, "refused_utf8_0") for a in ("--only", name)]
    argv = ["corpus", "--engine", "model", "--capabilities", NO_ZOOM, *only, "--jobs", "1"]
    assert cli.main([*argv, *more]) == 0


def test_skipped_for_a_lacking_capability_is_counted_under_it_with_its_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run("--junit-xml", str(tmp_path / "r.xml"), "--report", str(tmp_path / "pages"))
    out = capsys.readouterr().out
    # The index page's verdict: the run's last line, green as its exit code 0 says.
    index = (tmp_path / "pages" / "index.html").read_text(encoding="utf-8")
    last = out.splitlines()[-1]
    assert f'<span class="verdict pass"><bdi>{html.escape(last)}</bdi></span>' in index
    assert "not implemented: zoom (3 scenarios skipped)" in out, out
    assert "none here" not in out
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "r.xml").getroot().iter("testcase")}
    for name in ZOOMS:
        assert cases[name].find("skipped") is not None
        assert cases[name].get("classname") == "corpus.zoom"


def test_listed_skipped_scenarios_are_skipped_as_the_list_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known = tmp_path / "known.txt"
    known.write_text("".join(f"{name} skip\n" for name in ZOOMS))
    run("--known-failures", str(known))
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(
        "AS LISTED: of 4 scenarios, 1 agrees and 3 are skipped as the known failures say;"
    ), last


def test_a_report_says_what_is_declared_not_that_it_agrees() -> None:
    assert agreement(Profile()) == "declares no deviation (profile: SPEC)"
    said = agreement(Profile(retry="tick"))
    assert said.startswith("declares deviations: ") and "retry tick" in said
    assert "agrees" not in said


def test_a_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        cli.main(["corpus", "--engine", "reference", "--min-compared", "1.5"])
    assert ended.value.code == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1, said.err
    assert said.err.endswith(
        " corpus: error: argument --min-compared: 1.5: not a fraction from 0 to 1\n"
    )
