"""The C build of the planner (impl/__init__.py, impl/build.py): loaded only
when it was made from the sources beside it, and never under OPTCHAT_PURE."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import impl

needs_build = pytest.mark.skipif(not impl.COMPILED, reason="the C build is not loaded here")


def loaded_from(project: Path, **env: str) -> tuple[bool, str]:
    """`impl.COMPILED` and the planner module's file in a fresh interpreter in `project`."""
    probe = "import impl, impl.planner; print(impl.COMPILED, impl.planner.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    compiled, _, where = done.stdout.strip().partition(" ")
    return compiled == "True", where


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of impl/ and of its C build."""
    shutil.copytree(impl.HERE, tmp_path / "impl", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(impl.BUILD, tmp_path / "build" / "engine" / "impl")
    return tmp_path


@needs_build
def test_the_build_is_loaded_beside_its_own_sources(project: Path) -> None:
    compiled, where = loaded_from(project)
    assert compiled and where.startswith(str(project / "build" / "engine" / "impl"))


@needs_build
@pytest.mark.parametrize("source", ["view.py", "textscan.py", "textscan.c"])
def test_an_edited_source_runs_as_plain_python(project: Path, source: str) -> None:
    edited = project / "impl" / source
    comment = "#" if edited.suffix == ".py" else "//"
    text = edited.read_text(encoding="utf-8")
    edited.write_text(f"{text}\n{comment} edited\n", encoding="utf-8")
    assert loaded_from(project) == (False, str(project / "impl" / "planner.py"))


@needs_build
@pytest.mark.parametrize("module", ["queue", "textscan"])
def test_a_build_missing_a_module_is_not_loaded(project: Path, module: str) -> None:
    next((project / "build" / "engine" / "impl").glob(f"{module}.*")).unlink()
    assert loaded_from(project) == (False, str(project / "impl" / "planner.py"))


@needs_build
def test_optchat_pure_runs_plain_python(project: Path) -> None:
    assert loaded_from(project, OPTCHAT_PURE="1") == (False, str(project / "impl" / "planner.py"))


def test_without_a_build_the_planner_is_plain_python(tmp_path: Path) -> None:
    shutil.copytree(impl.HERE, tmp_path / "impl", ignore=shutil.ignore_patterns("__pycache__"))
    assert loaded_from(tmp_path) == (False, str(tmp_path / "impl" / "planner.py"))
