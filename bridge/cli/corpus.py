"""`corpus [PATH ...]`: an engine on many scenarios (the bundled corpus by
default), a line per scenario as it is checked, and the reports asked for."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from bridge.checking import causes
from bridge.checking.verdict import Verdict, outcome
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
    shrink_options,
)
from bridge.formats.usage import load_known, not_run, write_known
from bridge.outputs.index import write_index
from bridge.outputs.json_report import write_json
from bridge.outputs.junit import write_junit
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import REGRESSIONS, write_checked
from bridge.outputs.writing import check_file, check_folder, hold
from bridge.runs.corpus import (
    Run,
    check_all,
    failing,
    reproduction,
    unless_broken,
)
from bridge.runs.expect import corpus_version
from bridge.runs.shards import share
from bridge.runs.tally import counted, outside_lines, still_known
from bridge.runs.triage import (
    ENDING,
    SHRINKING_AT_LEAST,
    Judge,
    Shrinking,
    explained,
    scanning_for,
    shrinks_end,
    shrunk,
)
from bridge.wire.engine import EngineFault


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
        help="adopt the engine's value where a difference does not decide the rules to come "
        "(its line, a size, its views) and compare past it; events compared after adoption "
        "are counted as such (default: off; bridge/PROTOCOL.md, Adoption)",
    )
    shard_option(command, "the scenarios dealt among N by size (merge-reports joins the reports)")
    shrink_options(
        command,
        "each cause's shrunk scenario",
        causes.TRIES,
        "group the FAILs by their first divergences alone, nothing shrunk",
        f"the shrinks end by {ENDING:g}x the replay's time from the run's start, "
        f"and take at least {SHRINKING_AT_LEAST:g} s",
    )
    command.add_argument(
        "--write-known-causes",
        type=Path,
        metavar="FILE",
        help="write the causes of the FAILs as a list of cause ids, for fuzz --known-causes "
        "(default: none)",
    )
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
        ("--write-known-causes", args.write_known_causes),
    ):
        if path is not None:
            check_file(path, option)
    if args.report is not None:
        check_folder(args.report, "--report")
        hold(args.report, "--report")
    if args.regressions is not REGRESSIONS:  # named: checked now; by default made only if used
        check_folder(args.regressions, "--regressions")
    options = checking(
        args,
        quiet=args.jobs > 1,
        report=args.report,
        page=write_divergence_report,
        regression=write_checked,
    )
    began, started = time.monotonic(), datetime.now(UTC).isoformat(timespec="seconds")
    verdicts = []
    said = named = ""
    # FAILs listed as known once the run ends are no cause's: tried only after.
    judge = Judge(args.jobs) if args.write_known_failures is None else None
    idle = None if judge is None else judge.idle
    checked = unless_broken(check_all(paths, options, args.jobs, idle))
    for k, verdict in enumerate(paged_if_broken(checked, verdicts, args, known, began), start=1):
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
            if judge is not None and verdict.failure is not None:
                judge.add(verdict.failure)
            print(
                f"    {reproduction(verdict.path, options)}"
                " for the states there and a shrunk scenario",
                flush=True,
            )
        if seen == "UNEXPECTED PASS":
            print(f"    fixed: remove it from {args.known_failures}", flush=True)
        for note in verdict.notes:
            print(f"    note: {note}", flush=True)
        compared = verdict.coverage
        if (
            compared is not None
            and seen != "SKIPPED"
            and (compared.compared < compared.events or compared.delivered < compared.owed)
        ):
            print(f"    {compared.summary()}", flush=True)
    seconds = time.monotonic() - began
    ran = {name for v in verdicts for name in (v.path.name, v.path.stem)}
    for note in not_run(sorted(set(given) - ran), args.known_failures):
        print(note)
    verdicts.sort(key=lambda v: paths.index(v.path))
    if args.write_known_failures is not None:
        unrun = {name: status for name, status in given.items() if name not in ran}
        known = unrun | still_known(verdicts, given if args.known_failures is not None else None)
        write_known(args.write_known_failures, known)
        for name in sorted(set(given) - set(known) - set(unrun)):
            print(f"fixed: {name}, taken off {args.write_known_failures}")
        print(f"wrote {args.write_known_failures}: {len(known)} known failures")
    alike = failing(verdicts, known)
    stopped = [False]
    found = explained(alike, options, scanning_for(seconds, args.shrink_seconds), stopped, judge)

    def reported(found: list[causes.Cause]) -> Run:
        return Run(
            args.engine,
            said,
            corpus_version(),
            seconds,
            verdicts,
            known,
            found,
            named,
            args.min_compared,
            str(shard) if shard.count > 1 else None,
            started,
        )

    if found:
        print(f"verdict before shrinking: {reported(found).summary()}", flush=True)
    ends = shrinks_end(began, seconds, args.shrink_seconds)
    if stopped[0]:
        interrupted = True
    else:
        budget = Shrinking(args.shrink_tries, args.shrink_seconds, args.regressions, args.jobs)
        found, interrupted = shrunk(found, alike, options, budget, ends)
    if args.write_known_causes is not None:
        causes.write_known(args.write_known_causes, found, "--write-known-causes")
        print(f"wrote {args.write_known_causes}: {counted(len(found), 'cause')}")
    run_report = reported(found)
    if args.keep_going:
        for number, past in enumerate(run_report.beyond(), start=1):
            print(f"  {number}. {past.cause}: {past.said()}")
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
    if interrupted:
        raise KeyboardInterrupt
    return run_report.tally().code()


def paged_if_broken(
    checked: Iterator[Verdict],
    verdicts: list[Verdict],
    args: argparse.Namespace,
    known: dict[str, str],
    began: float,
) -> Iterator[Verdict]:
    """The verdicts as they come; when the engine faults at its start on
    every one (unless_broken), the report's index says so, with the
    verdicts so far, before the run stops."""
    try:
        yield from checked
    except EngineFault as fault:
        if args.report is not None:
            said = next((v.agreement for v in verdicts if v.agreement), "")
            stopped = Run(
                args.engine, said, corpus_version(), time.monotonic() - began, verdicts, known
            )
            print(f"the report: {write_index(stopped, args.report, str(fault))}", flush=True)
        raise
