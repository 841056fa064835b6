"""Importing an example engine changes nothing in the importing process:
each engine of tests/bridge/engines/ and tests/scenarios/engines/ that asks
for plain Python (its source names OPTCHAT_PURE: a bug planted by patching
the planner's classes) does so, and plants its bug, only when run as a program.
An engine that set OPTCHAT_PURE as it was imported left it set for every
later test of a pytest worker, whose engine processes then ran without the
C build; one that patched the planner as it was imported changed the
engine every later test of that worker ran in process."""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import impl
from impl import protocol

ROOT = Path(__file__).resolve().parents[2]
ENGINES = [
    path
    for folder in ("bridge", "scenarios")
    for path in sorted((ROOT / "tests" / folder / "engines").glob("*.py"))
    if "OPTCHAT_PURE" in path.read_text(encoding="utf-8")
]
"""The engines that run as plain Python."""


def planner_as_it_is() -> dict[str, Any]:
    """Every class attribute and module attribute of the engine's modules."""
    modules = [protocol, *(sys.modules[f"impl.{name}"] for name in impl.PLANNER)]
    found: dict[str, Any] = {}
    for module in modules:
        for name, value in vars(module).items():
            found[f"{module.__name__}.{name}"] = value
            if inspect.isclass(value) and value.__module__ == module.__name__:
                found |= {f"{module.__name__}.{name}.{k}": v for k, v in vars(value).items()}
    return found


def test_importing_an_example_engine_changes_no_environment_and_no_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    importlib.import_module("impl.planner")  # every planner module loaded before the snapshot
    monkeypatch.delenv("OPTCHAT_PURE", raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))  # some engines find their neighbours so
    environment, planner = dict(os.environ), planner_as_it_is()
    assert len(ENGINES) >= 10
    for path in ENGINES:
        spec = importlib.util.spec_from_file_location(f"imported_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        assert dict(os.environ) == environment, path.name
        assert planner_as_it_is() == planner, path.name
