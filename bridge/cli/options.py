"""What several commands' arguments share: the engine, the scenarios, the
reports and the shard."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TypeAlias

from bridge.checking.shrink import TRIES
from bridge.formats.layout import choose, files
from bridge.formats.usage import UsageError, read_capabilities, read_constants, read_profile
from bridge.outputs.regressions import REGRESSIONS
from bridge.runs.corpus import Options
from bridge.wire.examples import PREFIX, program
from scenarios.arguments import jobs_option, positive, positive_int, whole_number
from scenarios.shard import Shard, parse

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The command line's table of commands, each module adds its own to."""


TIMEOUT = 10.0
"""Seconds an engine has for each answer, unless `--timeout` says otherwise."""

ENGINES = (
    "`reference` (impl.protocol, run by this runner's Python), `model`, `impl` "
    "(in process), `example:NAME [ARGS]` (an example engine with a planted bug or a "
    "declared difference, README: Example engines), or the command of an engine "
    "speaking bridge/PROTOCOL.md"
)


def engine_options(
    command: argparse.ArgumentParser, engine_help: str = ENGINES + " (required)"
) -> None:
    """`--engine`, `--profile` and `--timeout`: which engine, and how it runs.
    The engine has no default (`named_engine`)."""
    command.add_argument("--engine", help=engine_help)
    command.add_argument(
        "--profile",
        type=Path,
        help="the engine's profile (SPEC 10), if it declares none (default: the one it declares)",
    )
    command.add_argument(
        "--timeout",
        type=positive,
        default=TIMEOUT,
        help="seconds per answer (default: %(default)s)",
    )


def capabilities_option(command: argparse.ArgumentParser) -> None:
    """`--capabilities`: what the engine implements, if it declares nothing."""
    command.add_argument(
        "--capabilities",
        metavar="NAME,NAME|FILE",
        help="the optional SPEC parts the engine implements, if it declares none "
        "(bridge/PROTOCOL.md, Capabilities); default: all",
    )


def constants_option(command: argparse.ArgumentParser) -> None:
    """`--constants`: the constants the engine accepts, if it declares none."""
    command.add_argument(
        "--constants",
        type=Path,
        metavar="FILE",
        help="the constants the engine accepts, if it declares none: a JSON object "
        "(bridge/PROTOCOL.md, Constants an engine accepts); default: any",
    )


def scenario_options(command: argparse.ArgumentParser, verb: str) -> None:
    """The scenarios a run takes (`PATH ...`, `--only`, `--skip`) and how
    many at once (`--jobs`); `verb` says what the run does to each."""
    command.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="scenario folders or files (default: the bundled corpus)",
    )
    command.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help=f"{verb} only scenarios whose name matches (repeatable; default: all)",
    )
    command.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out scenarios whose name matches (repeatable; default: none)",
    )
    jobs_option(command, "scenarios")


def scenarios(args: argparse.Namespace, verb: str) -> list[Path]:
    """The scenario files `scenario_options` chose; a UsageError when none is left."""
    chosen = choose(files(args.paths), args.only, args.skip)
    if not chosen:
        raise UsageError(f"no scenario left to {verb} (see --only and --skip)")
    return chosen


def report_options(command: argparse.ArgumentParser) -> None:
    """`--junit-xml` and `--json`: the machine-readable reports of a run."""
    command.add_argument(
        "--junit-xml", type=Path, metavar="PATH", help="a JUnit XML report (default: none)"
    )
    command.add_argument("--json", type=Path, metavar="PATH", help="a JSON report (default: none)")


def named_engine(args: argparse.Namespace) -> str:
    """The engine `--engine` names; a UsageError in one line when it names
    none: a run never checks an engine nobody named (issue 22)."""
    if args.engine is None:
        raise UsageError(f"--engine is required: {ENGINES}")
    if args.engine.startswith(PREFIX):
        program(args.engine)  # a name no example engine has: one line now, not a FAULT each
    return str(args.engine)


def checking(args: argparse.Namespace, **more: Any) -> Options:
    """How `compare` and `corpus` check a scenario, from their arguments."""
    return Options(
        named_engine(args),
        args.timeout,
        read_profile(args.profile),
        args.live_model,
        args.keep_going,
        capabilities=read_capabilities(args.capabilities),
        constants=read_constants(args.constants),
        **more,
    )


def shrink_options(
    command: argparse.ArgumentParser,
    written: str,
    tries: int = TRIES,
    none: str = "",
    seconds: str = "no limit",
) -> None:
    """`--regressions`, where the shrunk scenario (`written`) goes, and
    `--shrink-tries` and `--shrink-seconds`: what shrinking a divergence
    may spend, counted in replays so that a busy machine shrinks as far as a
    quiet one (`tries` unless told; 0 allowed when `none` says what it
    does); seconds only a cap (by default `seconds`)."""
    command.add_argument(
        "--regressions",
        type=Path,
        default=REGRESSIONS,
        metavar="DIR",
        help=f"where {written} is written (default: %(default)s)",
    )
    command.add_argument(
        "--shrink-tries",
        type=whole_number if none else positive_int,
        default=tries,
        help=f"shrinking's budget in replays (default {tries}; counted, so a busy machine "
        f"shrinks as far{'; 0: ' + none if none else ''})",
    )
    command.add_argument(
        "--shrink-seconds",
        type=positive,
        help=f"shrinking's time at most, and in `corpus` trying rule slips' (default: {seconds})",
    )


def live_model_option(command: argparse.ArgumentParser) -> None:
    """`--live-model`: expect what the model answers as the run goes."""
    command.add_argument(
        "--live-model",
        action="store_true",
        help="expect the model's answers, not the committed transcripts (default: off)",
    )


def shrink_said(args: argparse.Namespace) -> str:
    """The shrinking budget given, as the options that repeat it (empty for
    the defaults)."""
    said = f" --shrink-tries {args.shrink_tries}" if args.shrink_tries != TRIES else ""
    if args.shrink_seconds is not None:
        said += f" --shrink-seconds {args.shrink_seconds:g}"
    return said


def fraction(text: str) -> float:
    """A fraction from 0 to 1, as `--min-compared` takes it."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: not a fraction from 0 to 1")
    return value


def floor_option(command: argparse.ArgumentParser, of: str = "the events") -> None:
    """`--min-compared FRACTION`: the fraction of `of` whose answers a run
    must compare to exit 0 (a ratchet, docs/ci.md). A run that compared
    nothing exits 1 whatever the floor."""
    command.add_argument(
        "--min-compared",
        type=fraction,
        default=0.0,
        metavar="FRACTION",
        help=f"exit 1 when less than this fraction of {of} had their answer compared "
        "(a run that compared none exits 1 anyway; default: %(default)s)",
    )


def shard_option(command: argparse.ArgumentParser, what: str) -> None:
    """`--shard K/N`: this machine's part of a campaign over N."""
    command.add_argument(
        "--shard", metavar="K/N", help=f"take shard K of N: {what} (default: the whole run)"
    )


def shard_of(args: argparse.Namespace) -> Shard:
    """The `--shard` given (the whole search without one); a UsageError in
    one line for anything but K/N with 1 <= K <= N."""
    if args.shard is None:
        return Shard()
    try:
        return parse(args.shard)
    except ValueError as error:
        raise UsageError(str(error)) from None
