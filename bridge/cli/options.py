"""What several commands' arguments share: the engine options, and numbers
that must be positive."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, TypeAlias

from bridge.formats.usage import UsageError, read_profile
from bridge.runs.corpus import Options
from scenarios.shard import Shard, parse

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The command line's table of commands, each module adds its own to."""


def engine_options(command: argparse.ArgumentParser) -> None:
    """`--engine`, `--profile` and `--timeout`: which engine, and how it runs."""
    command.add_argument("--engine", default="impl", help="model, impl, or a protocol command")
    command.add_argument(
        "--profile", type=Path, help="the engine's profile (SPEC 10), if it declares none"
    )
    command.add_argument("--timeout", type=positive, default=10.0, help="seconds per answer")


def checking(args: argparse.Namespace, **more: Any) -> Options:
    """How `compare` and `corpus` check a scenario, from their arguments."""
    return Options(
        args.engine,
        args.timeout,
        read_profile(args.profile),
        args.live_model,
        args.keep_going,
        **more,
    )


def positive(text: str) -> float:
    """A positive finite number (not 0, -1, nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text}: not a positive number")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: not a positive whole number")
    return value


def shard_option(command: argparse.ArgumentParser, what: str) -> None:
    """`--shard K/N`: this machine's part of a campaign over N."""
    command.add_argument("--shard", metavar="K/N", help=f"take shard K of N: {what}")


def shard_of(args: argparse.Namespace) -> Shard:
    """The `--shard` given (the whole search without one); a UsageError in
    one line for anything but K/N with 1 <= K <= N."""
    if args.shard is None:
        return Shard()
    try:
        return parse(args.shard)
    except ValueError as error:
        raise UsageError(str(error)) from None
