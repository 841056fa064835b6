"""scenarios/arguments.py: the numbers the runner's and the laws' command
lines take, refused in one line when the option cannot mean them, and
`--jobs` the same in every command that has it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import pytest

from bridge import cli
from laws import mutants
from laws.__main__ import parser as laws_parser
from scenarios.arguments import positive, positive_int


@pytest.mark.parametrize(("text", "value"), [("0.5", 0.5), ("3", 3.0), ("1e3", 1000.0)])
def test_a_positive_number_is_taken(text: str, value: float) -> None:
    assert positive(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "-0.0", "nan", "inf", "-inf", "1e400", "x", ""])
def test_anything_else_is_not_a_positive_number(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{text}: not a positive number$"):
        positive(text)


@pytest.mark.parametrize(("text", "value"), [("1", 1), ("12", 12), (" 7 ", 7)])
def test_a_positive_whole_number_is_taken(text: str, value: int) -> None:
    assert positive_int(text) == value


@pytest.mark.parametrize("text", ["0", "-3", "1.5", "1e3", "x", ""])
def test_anything_else_is_not_a_positive_whole_number(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{text}: not a positive whole number$"):
        positive_int(text)


JOBS: list[tuple[str, Callable[[list[str]], Any]]] = [
    ("corpus", lambda more: cli.parser().parse_args(["corpus", *more])),
    ("expect", lambda more: cli.parser().parse_args(["expect", *more])),
    ("diagnose", lambda more: cli.parser().parse_args(["diagnose", *more])),
    ("laws", lambda more: laws_parser().parse_args(more)),
    ("laws.mutants", lambda more: mutants.main(more)),
]
"""Every command with `--jobs`, reading its arguments."""


@pytest.mark.parametrize(("command", "parse"), JOBS, ids=[c for c, _ in JOBS])
@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_is_a_positive_whole_number_everywhere(
    command: str,
    parse: Callable[[list[str]], Any],
    jobs: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse(["--jobs", jobs])
    assert stopped.value.code == 2, command
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith(f"argument --jobs: {jobs}: not a positive whole number")
    if command != "laws.mutants":  # its main would run the breaks
        assert parse(["--jobs", "3"]).jobs == 3
