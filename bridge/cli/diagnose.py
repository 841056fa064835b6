"""`diagnose [PATH ...]`: which declared differences explain an engine's
divergences, a proposed profile, and the likely bugs left, shrunk."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from bridge.cli.options import Commands, engine_options, positive
from bridge.formats.layout import choose, files
from bridge.formats.usage import UsageError, read_profile
from bridge.outputs.diagnosis import text
from bridge.outputs.regressions import REGRESSIONS
from bridge.outputs.writing import check_folder
from bridge.runs.corpus import Options
from bridge.runs.diagnose import diagnose


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "diagnose", help="which profile explains an engine's divergences, and its likely bugs"
    )
    command.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="scenario folders or files (default: the bundled corpus)",
    )
    engine_options(command)
    command.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="diagnose only scenarios whose name matches (repeatable; default: all)",
    )
    command.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out scenarios whose name matches (repeatable; default: none)",
    )
    command.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="scenarios at a time (default: %(default)s, the cores)",
    )
    command.add_argument(
        "--regressions",
        type=Path,
        default=REGRESSIONS,
        metavar="DIR",
        help="where the likely bugs, shrunk, are written (default: %(default)s)",
    )
    command.add_argument(
        "--shrink-seconds",
        type=positive,
        default=30.0,
        help="shrinking's budget per likely bug (default: %(default)s)",
    )
    command.add_argument(
        "--live-model",
        action="store_true",
        help="the model instead of the committed transcripts (default: off)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = choose(files(args.paths), args.only, args.skip)
    if not paths:
        raise UsageError("no scenario left to diagnose (see --only and --skip)")
    check_folder(args.regressions, "--regressions")
    options = Options(args.engine, args.timeout, read_profile(args.profile), args.live_model)
    report = diagnose(paths, options, args.jobs, args.shrink_seconds)
    lines, code = text(report, args.regressions)
    print("\n".join(lines), flush=True)
    return code
