"""The scale measure reports the child's own peak memory, not its parent's."""

from __future__ import annotations

import subprocess
import sys

from bench.scale import peak_bytes


def test_a_child_reports_its_own_peak_not_its_large_parent() -> None:
    ballast = b"x" * 300_000_000  # resident in this process while the child runs
    child = subprocess.run(
        [sys.executable, "-c", "from bench.scale import peak_bytes; print(peak_bytes())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(ballast) and peak_bytes() >= 300_000_000
    assert int(child.stdout) < 150_000_000
