"""What the CLI's tests share: the runner's command line run in this
process, and the deliberately wrong engine (tests/cli/engines/wrong.py).
Light on imports: laws/mutants.py runs single tests of
tests/cli/test_wrong_engines.py against each runner break."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bridge import cli

WRONG = Path(__file__).parent / "engines" / "wrong.py"


def wrong(how: str) -> str:
    """The command of an engine wrong in `how` (engines/wrong.py)."""
    return f"{sys.executable} {WRONG} {how}"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`python -m bridge ARGS` in this process: its exit code, stdout and
    stderr, which never hold a traceback."""
    code = cli.main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err
