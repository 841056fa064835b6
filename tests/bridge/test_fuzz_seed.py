"""A `fuzz` seed repeats its histories whatever else the process loaded
(bridge/runs/fuzz.py `without_local_constants`): Hypothesis mixes into its
draws the literals of the modules it takes for the user's own, which differ
between a clone, the wheel and the zipapp, and grow when another command
(`laws`) ran in the same process. Found as a test of the fuzz's floor that
failed only when `laws --help` had run before it in the same pytest worker."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis.internal.conjecture import providers

import bridge.runs.fuzz as fuzz_run
import bridge.runs.fuzz_draws as fuzz_draws
from bridge import cli


def histories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The constants and event seeds of the histories `fuzz --seed 1` draws
    (the engine in process)."""
    seen: list[tuple[Any, ...]] = []
    drawn: Callable[..., Any] = fuzz_draws.drawn

    def spied(constants: Any, seeds: list[int], *rest: Any, **named: Any) -> Any:
        seen.append((constants, tuple(seeds)))
        return drawn(constants, seeds, *rest, **named)

    monkeypatch.setattr(fuzz_draws, "drawn", spied)
    args = ["fuzz", "--engine", "impl", "--seed", "1", "--histories", "6"]
    assert cli.main([*args, "--regressions", str(tmp_path)]) == 0
    monkeypatch.setattr(fuzz_draws, "drawn", drawn)
    return seen


@contextlib.contextmanager
def literals(folder: Path) -> Iterator[None]:
    """A module of the user's own loaded, full of literals a history's draws can take."""
    numbers = ", ".join(str(n) for n in range(1, 3000, 7))
    blobs = ", ".join(repr(bytes([k, 255 - k, k, 7])) for k in range(0, 256, 3))
    (folder / "many_literals.py").write_text(f"NUMBERS = ({numbers})\nBLOBS = ({blobs})\n")
    sys.path.insert(0, str(folder))
    try:
        importlib.import_module("many_literals")
        yield
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("many_literals", None)


@contextlib.contextmanager
def unchanged() -> Iterator[None]:
    yield


def test_a_seeds_histories_do_not_depend_on_the_modules_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    (tmp_path / "bare").mkdir()
    before = histories(tmp_path / "before", monkeypatch)
    with literals(tmp_path):
        after = histories(tmp_path / "after", monkeypatch)
        assert len(before) == 6 and after == before
        # Hypothesis draws the literals without it: this test can tell
        # (where Hypothesis collects them: the lock's version does).
        monkeypatch.setattr(fuzz_run, "without_local_constants", unchanged)
        bare = histories(tmp_path / "bare", monkeypatch)
    assert bare != before or not hasattr(providers, "_get_local_constants")
    capsys.readouterr()
