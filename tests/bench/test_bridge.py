"""Row 7's zero-cost engine answers exactly what the transcripts record, so
that a run with it measures the bridge alone and agrees."""

from __future__ import annotations

import subprocess
import sys

from bench.bridge import REPLAYER


def test_the_zero_cost_engine_agrees_where_relative_records_say_what_was_sent() -> None:
    """zoom_0 and zoom_1 hold relative starts, settles and messages (scenario
    format 3), whose records carry what was sent before the answer."""
    engine = f"{sys.executable} {REPLAYER}"
    done = subprocess.run(
        [sys.executable, "-m", "bridge", "corpus", "--engine", engine]
        + ["--only", "zoom_0", "--only", "zoom_1", "--jobs", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "ALL 2 SCENARIOS AGREE" in done.stdout
