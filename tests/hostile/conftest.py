"""Each hostile test gets a mark, a folder, and whatever its engines leave
behind killed afterwards (so a failing test leaks nothing either)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.processes import Hostile, hostile


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Hostile]:
    found = hostile(tmp_path)
    yield found
    found.kill_left()
