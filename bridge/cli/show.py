"""`show FILE`: a scenario, and a divergence, as one HTML page (or its
sawtooth alone as an SVG picture)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge.checking.against import against
from bridge.cli.options import ENGINES, Commands, engine_options
from bridge.formats.layout import named, read_checked
from bridge.formats.profile import SPEC, ProfileError
from bridge.formats.usage import UsageError, read_profile
from bridge.outputs.page import NoSuchEvent, write_report
from bridge.outputs.sawtooth import write_sawtooth
from bridge.outputs.writing import check_file
from scenarios.format import ScenarioError


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("show", help="a scenario, and a divergence, as one HTML page")
    command.add_argument("file", help="a scenario file, or a bundled scenario's name")
    engine_options(
        command, f"{ENGINES}: show where it diverges (default: none, the scenario alone)"
    )
    command.add_argument(
        "--at",
        type=int,
        metavar="EVENT",
        help="the event to open the views at (default: the divergence, else the last)",
    )
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="PATH",
        help="the report (.html), or the sawtooth alone (.svg) "
        "(default: NAME.html in the current directory, NAME the scenario's)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The `show` command: 0 when the page (or picture) is written, 2 on bad
    input; an EngineFault is left to bridge/cli/__init__.py to report, as for `compare`."""

    try:
        path = named(args.file)
        output: Path = args.output or Path(f"{path.stem}.html")
        if output.suffix not in (".html", ".svg"):
            raise UsageError(f"-o {output}: name an .html file (the report) or .svg (the sawtooth)")
        scenario = read_checked(path)
        given = read_profile(args.profile)
        check_file(output, "-o")
        if output.suffix == ".svg":
            write_sawtooth(output, scenario, given or SPEC)
        else:
            profile, comparison = (given or SPEC), None
            if args.engine is not None:
                profile, comparison = against(scenario, args.engine, given, args.timeout)
            write_report(output, scenario, profile, args.at, comparison)
    except (UsageError, ScenarioError, ProfileError, NoSuchEvent, OSError) as error:
        print(f"optchat-spec show: {error}", file=sys.stderr)
        return 2
    print(f"wrote {output}")
    return 0
