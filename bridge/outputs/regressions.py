"""Regressions written: a scenario an engine diverged on (shrunk) or failed
on, with the model's transcript of it, where `compare` and `fuzz` put them."""

from __future__ import annotations

from pathlib import Path

from bridge.formats.layout import expected_path
from bridge.formats.profile import to_json
from bridge.formats.transcript import Header, packed, sha256
from bridge.outputs.writing import check_folder, write_whole
from bridge.runs.expect import records
from model.profile import Profile
from scenarios.format import Scenario, dump

REGRESSIONS = Path("optchat-regressions")
"""Where `compare` and `fuzz` write shrunk scenarios unless told otherwise:
a folder in the current directory, never inside a corpus."""


def write_regression(scenario: Scenario, profile: Profile, folder: Path, name: str) -> Path:
    """Write a scenario and the model's transcript of it, in the layout the
    corpus command reads (`FOLDER/scenarios/NAME.jsonl` beside
    `FOLDER/expected/scenarios/...`): `corpus FOLDER/scenarios` replays them."""
    path = folder / "scenarios" / f"{name}.jsonl"
    write_whole(path, "".join(text + "\n" for text in dump(scenario)))
    header = Header(path.name, sha256(path), to_json(profile), 0)
    expected = expected_path(path, profile)
    write_whole(expected, packed(header, records(path, profile), expected))
    return path


def write_checked(scenario: Scenario, profile: Profile, folder: Path, name: str) -> Path:
    """`write_regression` in `folder` as `--regressions` names it, checked
    first (bridge/outputs/writing.py `check_folder`): a cause's shrunk
    scenario, as `corpus` and `diagnose` write each (bridge/runs/triage.py)."""
    check_folder(folder, "--regressions")
    return write_regression(scenario, profile, folder, name)
