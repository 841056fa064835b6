"""The benchmarks on the command line: help, and bad arguments."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bench import drive, growth, scale, storage, zipapp

CASES = [
    (scale.main, "bench.scale", ["ten"], "argument COUNT: ten: not a positive whole number"),
    (scale.main, "bench.scale", [], "the following arguments are required: COUNT"),
    (storage.main, "bench.storage", ["0"], "argument COUNT: 0: not a positive whole number"),
    (drive.main, "bench.drive", ["128000"], "the following arguments are required: COUNT"),
    (drive.main, "bench.drive", ["-5", "10"], "argument CEILING: -5: not a positive whole number"),
    (growth.main, "bench.growth", ["0"], "argument MB: 0: not a positive whole number"),
    (zipapp.main, "bench.zipapp", ["--runs", "0"], "argument --runs: 0: not a positive whole"),
]


@pytest.mark.parametrize(("main", "module", "bad", "error"), CASES)
def test_help_exits_0_and_a_bad_argument_exits_2_with_one_error_line(
    main: Callable[[list[str]], None],
    module: str,
    bad: list[str],
    error: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m {module}")
    with pytest.raises(SystemExit) as done:
        main(bad)
    assert done.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1].startswith(f"python -m {module}: error: {error}")
