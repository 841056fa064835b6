"""Numbers on the command lines of the runner and the laws (`--jobs`,
`--timeout`, `--histories`, ...): argparse types that take only a number
the option can mean and refuse anything else in one line, and `--jobs`
itself. Shared here, as `--shard` (shard.py) is, because the laws may not
import the bridge nor the bridge the laws."""

from __future__ import annotations

import argparse
import math
import os


def positive(text: str) -> float:
    """A positive finite number (not 0, -1, nan or inf): seconds, a budget."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text}: not a positive number")
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1: a count."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: not a positive whole number")
    return value


def whole_number(text: str) -> int:
    """A whole number of at least 0: a count that may be none."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: not a whole number of 0 or more")
    return value


def jobs_option(command: argparse.ArgumentParser, what: str, default: int | None = None) -> None:
    """`--jobs N`: how many `what` run at once, at least 1; by default the
    CPU count."""
    command.add_argument(
        "--jobs",
        type=positive_int,
        default=default or os.cpu_count() or 1,
        help=f"{what} at once (default: {'' if default else 'the CPU count, '}%(default)s)",
    )
