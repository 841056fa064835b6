"""`diagnose [PATH ...]`: which declared differences explain an engine's
divergences, a proposed profile and capabilities, and the likely bugs left,
shrunk; as text, and as JSON and JUnit XML when asked. Stopped by Ctrl-C,
SIGTERM or `--seconds`, it reports and writes what it found so far."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys

from bridge.cli.options import (
    Commands,
    capabilities_option,
    constants_option,
    engine_options,
    floor_option,
    live_model_option,
    named_engine,
    report_options,
    scenario_options,
    scenarios,
    shrink_options,
)
from bridge.formats.usage import read_capabilities, read_constants, read_profile
from bridge.outputs.diagnosis import text, write_json, write_junit
from bridge.outputs.regressions import write_checked
from bridge.outputs.writing import check_file, check_folder
from bridge.runs.corpus import Options
from bridge.runs.diagnose import diagnose
from scenarios.arguments import positive


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "diagnose", help="which profile explains an engine's divergences, and its likely bugs"
    )
    scenario_options(command, "diagnose")
    engine_options(command)
    capabilities_option(command)
    constants_option(command)
    report_options(command)
    shrink_options(command, "one likely bug of each cause, shrunk,")
    floor_option(command, "the scenarios' events (replayed under the proposal)")
    live_model_option(command)
    command.add_argument(
        "--seconds",
        type=positive,
        help="stop after this many seconds with what was found so far, reported and "
        "written as at the end, exit 2 (default: no limit)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = scenarios(args, "diagnose")
    check_folder(args.regressions, "--regressions")
    for option, path in (("--junit-xml", args.junit_xml), ("--json", args.json)):
        if path is not None:
            check_file(path, option)
    options = Options(
        named_engine(args),
        args.timeout,
        read_profile(args.profile),
        args.live_model,
        capabilities=read_capabilities(args.capabilities),
        constants=read_constants(args.constants),
        regression=write_checked,
    )
    shrink_seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds
    budget = math.inf if args.seconds is None else args.seconds
    report = diagnose(
        paths, options, args.jobs, args.shrink_tries, shrink_seconds, budget, args.regressions
    )
    if args.json is not None:
        write_json(report, args.json, args.min_compared)
    if args.junit_xml is not None:
        write_junit(report, args.junit_xml, args.min_compared)
    lines, code = text(report, args.min_compared)
    # The reports first: a run stopped by a closed terminal has nowhere to print.
    with contextlib.suppress(OSError) if report.stopped else contextlib.nullcontext():
        print("\n".join(lines), flush=True)
        if report.stopped == "interrupted":
            print("interrupted", file=sys.stderr, flush=True)
    return code
