"""`python -m impl.example` on the command line: help, and a bad argument."""

from __future__ import annotations

import pytest

from impl.example import main


def test_help_exits_0_and_a_bad_argument_exits_2_without_running(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m impl.example")
    with pytest.raises(SystemExit) as done:
        main(["--messages", "5"])
    assert done.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == (
        "python -m impl.example: error: unrecognized arguments: --messages 5"
    )
