"""Regressions written: a scenario an engine diverged on (shrunk) or failed
on, with the model's transcript of it, where `compare` and `fuzz` put them."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from bridge.formats.layout import expected_path
from bridge.formats.profile import to_json
from bridge.formats.transcript import Header, sha256, write
from bridge.runs.expect import records
from model.profile import Profile
from scenarios.format import Scenario
from scenarios.format import write as write_scenario

REGRESSIONS = Path("optchat-regressions")
"""Where `compare` and `fuzz` write shrunk scenarios unless told otherwise:
a folder in the current directory, never inside a corpus."""


def slug(command: str) -> str:
    """A file-name part naming an engine: readable, and unique to the whole
    command (a hash of it), so two engines never share a file."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", command).strip("-")[:40] or "engine"
    return f"{words}-{hashlib.sha256(command.encode()).hexdigest()[:8]}"


def write_regression(scenario: Scenario, profile: Profile, folder: Path, name: str) -> Path:
    """Write a scenario and the model's transcript of it, in the layout the
    corpus command reads (`FOLDER/scenarios/NAME.jsonl` beside
    `FOLDER/expected/scenarios/...`): `corpus FOLDER/scenarios` replays them."""
    path = folder / "scenarios" / f"{name}.jsonl"
    write_scenario(scenario, path)
    header = Header(path.name, sha256(path), to_json(profile), 0)
    write(header, records(path, profile), expected_path(path, profile))
    return path
