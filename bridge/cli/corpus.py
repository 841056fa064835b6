"""`corpus [PATH ...]`: an engine on many scenarios (the bundled corpus by
default), a line per scenario as it is checked, and the reports asked for."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bridge.checking.verdict import outcome
from bridge.cli.options import (
    Commands,
    capabilities_option,
    checking,
    constants_option,
    engine_options,
    floor_option,
    live_model_option,
    report_options,
    scenario_options,
    scenarios,
    shard_of,
    shard_option,
)
from bridge.formats.usage import load_known, write_known
from bridge.outputs.index import write_index
from bridge.outputs.json_report import write_json
from bridge.outputs.junit import write_junit
from bridge.outputs.page import write_divergence_report
from bridge.outputs.writing import check_file, check_folder
from bridge.runs.corpus import Run, check_all, reproduction, unless_broken
from bridge.runs.expect import corpus_version
from bridge.runs.shards import share
from bridge.runs.tally import outside_lines, still_known


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("corpus", help="an engine on many scenarios")
    scenario_options(command, "check")
    engine_options(command)
    capabilities_option(command)
    constants_option(command)
    command.add_argument(
        "--known-failures",
        type=Path,
        metavar="FILE",
        help="scenarios expected not to agree, a line each: NAME [fail|fault|skip] (default: none)",
    )
    command.add_argument(
        "--write-known-failures",
        type=Path,
        metavar="FILE",
        help="write the scenarios that did not agree as a known-failures FILE; with "
        "--known-failures, only those of it that still fail as listed (default: none)",
    )
    report_options(command)
    floor_option(command, "the scenarios' events (with --shard, of the merged report's)")
    command.add_argument(
        "--report",
        type=Path,
        metavar="DIR",
        help="one HTML page per failing scenario, as show draws it (default: none)",
    )
    live_model_option(command)
    command.add_argument(
        "--keep-going",
        action="store_true",
        help="compare past a scenario's first divergence (default: off)",
    )
    shard_option(command, "the scenarios dealt among N by size (merge-reports joins the reports)")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    shard = shard_of(args)
    chosen = scenarios(args, "check")
    paths = share(chosen, shard)
    if shard.count > 1:
        print(f"shard {shard}: {len(paths)} of {len(chosen)} scenarios", flush=True)
    given = load_known(args.known_failures)
    known = given
    if args.write_known_failures is not None and args.known_failures is None:
        known = {}
    for option, path in (
        ("--junit-xml", args.junit_xml),
        ("--json", args.json),
        ("--write-known-failures", args.write_known_failures),
    ):
        if path is not None:
            check_file(path, option)
    if args.report is not None:
        check_folder(args.report, "--report")
    options = checking(
        args,
        quiet=args.jobs > 1,
        report=args.report,
        page=write_divergence_report,
    )
    began = time.monotonic()
    verdicts = []
    said = named = ""
    for k, verdict in enumerate(unless_broken(check_all(paths, options, args.jobs)), start=1):
        verdicts.append(verdict)
        said, named = said or verdict.agreement, named or verdict.declared
        seen = outcome(verdict, known)
        print(
            f"[{k}/{len(paths)}] {seen:<4} {verdict.path.name} ({verdict.seconds:.1f} s, "
            f"{time.monotonic() - began:.0f} s in all)",
            flush=True,
        )
        if seen != "ok":
            print("    " + verdict.reason.replace("\n", "\n    "), flush=True)
        if seen == "FAIL":
            print(
                f"    {reproduction(verdict.path, options)}"
                " for the states there and a shrunk scenario",
                flush=True,
            )
        if seen == "UNEXPECTED PASS":
            print(f"    fixed: remove it from {args.known_failures}", flush=True)
        for note in verdict.notes:
            print(f"    note: {note}", flush=True)
        counted = verdict.coverage
        if (
            counted is not None
            and seen != "SKIPPED"
            and (counted.compared < counted.events or counted.delivered < counted.owed)
        ):
            print(f"    {counted.summary()}", flush=True)
    seconds = time.monotonic() - began
    ran = {name for v in verdicts for name in (v.path.name, v.path.stem)}
    for name in sorted(set(given) - ran):
        print(f"note: {name} is listed as a known failure but was not run")
    verdicts.sort(key=lambda v: paths.index(v.path))
    if args.write_known_failures is not None:
        unrun = {name: status for name, status in given.items() if name not in ran}
        known = unrun | still_known(verdicts, given if args.known_failures is not None else None)
        write_known(args.write_known_failures, known)
        for name in sorted(set(given) - set(known) - set(unrun)):
            print(f"fixed: {name}, taken off {args.write_known_failures}")
        print(f"wrote {args.write_known_failures}: {len(known)} known failures")
    run_report = Run(
        args.engine,
        said,
        corpus_version(),
        seconds,
        verdicts,
        known,
        named,
        args.min_compared,
        str(shard) if shard.count > 1 else None,
    )
    if args.junit_xml:
        write_junit(run_report, args.junit_xml)
    if args.json:
        write_json(run_report, args.json)
    if args.report is not None:
        print(f"the report: {write_index(run_report, args.report)}")
    print(run_report.coverage().summary())
    for line in outside_lines(verdicts):
        print(line)
    print(run_report.summary())
    return run_report.tally().code()
