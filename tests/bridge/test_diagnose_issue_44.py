"""`diagnose` finds the options issue 44 added to SPEC 10 from nothing: an
example engine that runs under one of them and declares nothing is
proposed exactly that profile, with no likely bug."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.formats.capabilities import ALL
from tests.bridge.test_diagnose_rules import (
    MISDECLARED,
    ROOT,
    diagnose,
    examples_in_process,  # noqa: F401 (a fixture)
    said,
)

ISSUE_44_ENGINES = {
    "free leaves queued": ({"free_leaves": "queued"}, ("random_00",)),
    "lines flattened": ({"flat_lines": True}, ("random_00",)),
    "no AHEAD": ({"ahead_limit": "none"}, ("random_00",)),
    "sizes flattened": ({"flat_sizes": True}, ("random_00",)),
    "batches at builds": ({"batches": "builds"}, ("refused_one_wait_0",)),
    "sizes with the row's head": ({"row_sizes": True}, ("random_00",)),
}
"""Engines that differ from SPEC in one option of issue 44, and the corpus
scenarios that show it."""


@pytest.mark.usefixtures("examples_in_process")
@pytest.mark.parametrize("name", list(ISSUE_44_ENGINES))
def test_the_options_of_issue_44_are_proposed_from_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the engine, run as a script, finds the project
    runs, scenarios = ISSUE_44_ENGINES[name]
    code, data = diagnose(tmp_path, f"{MISDECLARED} '{json.dumps(runs)}'", *scenarios)
    out = said(capsys)
    assert code == 0, out
    assert data["proposed"] == {"profile": runs, "capabilities": sorted(ALL)}, out
    assert data["likely_bugs"] == []
