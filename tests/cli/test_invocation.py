"""The command a hint repeats is the one the user ran (bridge/formats/invocation.py),
checked in process: the gate's stand-in for the end-to-end hints of the installed
runner and the zipapp, which run in `make test-more` (docs/developing.md, Two tiers)."""

from __future__ import annotations

import os
import shlex
import sys
import zipfile
from pathlib import Path

import pytest

from bridge.formats import invocation


def test_an_installed_runner_names_optchat_spec_bare_on_path_else_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "venv bin"
    bin_dir.mkdir()
    program = bin_dir / "optchat-spec"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program), "corpus"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert invocation.command() == shlex.quote(str(program))
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]))
    assert invocation.command() == "optchat-spec"


def test_the_zipapp_names_python_and_its_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyz = tmp_path / "optchat spec.pyz"
    with zipfile.ZipFile(pyz, "w") as archive:
        archive.writestr("__main__.py", "")
    monkeypatch.setattr(sys, "argv", [str(pyz)])
    said = invocation.command()
    assert said.endswith(" " + shlex.quote(str(pyz.resolve()))), said
    assert "-m bridge" not in said and "optchat-spec " not in said


def test_a_clone_names_python_m_bridge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [str(Path(invocation.__file__).parents[1] / "__main__.py")])
    monkeypatch.chdir(invocation.PACKAGES)
    assert invocation.command().endswith(" -m bridge")
