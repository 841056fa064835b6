"""`corpus [PATH ...]`: an engine on many scenarios (the bundled corpus by
default), a line per scenario as it is checked, and the reports asked for."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from bridge.checking.delivery import percent
from bridge.checking.verdict import Verdict, outcome
from bridge.cli.options import Commands, checking, engine_options
from bridge.formats.layout import choose, files
from bridge.formats.usage import UsageError, load_known, program
from bridge.outputs.index import write_index
from bridge.outputs.json_report import write_json
from bridge.outputs.junit import write_junit
from bridge.outputs.page import write_divergence_report
from bridge.outputs.writing import check_file, check_folder
from bridge.runs.corpus import Run, check_all
from bridge.runs.expect import corpus_version


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("corpus", help="an engine on many scenarios")
    command.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="folders or files")
    engine_options(command)
    command.add_argument("--only", action="append", default=[], metavar="GLOB")
    command.add_argument("--skip", action="append", default=[], metavar="GLOB")
    command.add_argument("--known-failures", type=Path, metavar="FILE")
    command.add_argument("--junit-xml", type=Path, metavar="PATH")
    command.add_argument("--json", type=Path, metavar="PATH")
    command.add_argument(
        "--report", type=Path, metavar="DIR", help="one HTML page per failing scenario (show)"
    )
    command.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    command.add_argument(
        "--live-model", action="store_true", help="the model instead of the committed transcripts"
    )
    command.add_argument(
        "--keep-going", action="store_true", help="compare past a scenario's first divergence"
    )
    command.set_defaults(run=run)


def delivered_line(verdicts: list[Verdict]) -> str:
    """The run's events delivered under the profile, over the scenarios
    replayed to the end (a scenario stopped at a divergence says nothing)."""
    reached = [v.delivery for v in verdicts if v.delivery is not None]
    if not reached:
        return "events delivered under the profile: no scenario was replayed to the end"
    total = sum(reached[1:], reached[0])
    return (
        f"events delivered under the profile: {total.delivered:,} of {total.events:,} "
        f"({percent(total.delivered, total.events)}) in the {len(reached)} scenarios "
        "replayed to the end"
    )


def run(args: argparse.Namespace) -> int:
    paths = choose(files(args.paths), args.only, args.skip)
    if not paths:
        raise UsageError("no scenario left to check (see --only and --skip)")
    known = load_known(args.known_failures)
    for option, path in (("--junit-xml", args.junit_xml), ("--json", args.json)):
        if path is not None:
            check_file(path, option)
    if args.report is not None:
        check_folder(args.report, "--report")
    options = checking(
        args,
        quiet=args.jobs > 1,
        report=args.report,
        page=write_divergence_report,
        program=program(),
    )
    began = time.monotonic()
    verdicts = []
    said = ""
    for k, verdict in enumerate(check_all(paths, options, args.jobs), start=1):
        verdicts.append(verdict)
        said = said or verdict.agreement
        seen = outcome(verdict, known)
        print(
            f"[{k}/{len(paths)}] {seen:<4} {verdict.path.name} ({verdict.seconds:.1f} s, "
            f"{time.monotonic() - began:.0f} s in all)",
            flush=True,
        )
        if seen not in ("ok",):
            print("    " + verdict.reason.replace("\n", "\n    "), flush=True)
        if seen == "FAIL":
            print(
                f"    python -m bridge compare {verdict.path} --engine {json.dumps(args.engine)}"
                " for the states there and a shrunk scenario",
                flush=True,
            )
        for note in verdict.notes:
            print(f"    note: {note}", flush=True)
    seconds = time.monotonic() - began
    listed = {
        name for name in known if not any(name in (v.path.name, v.path.stem) for v in verdicts)
    }
    for name in sorted(listed):
        print(f"note: {name} is listed as a known failure but was not run")
    verdicts.sort(key=lambda v: paths.index(v.path))
    print(delivered_line(verdicts))
    outcomes = [outcome(v, known) for v in verdicts]
    run_report = Run(args.engine, said, corpus_version(), seconds, verdicts, known)
    if args.junit_xml:
        write_junit(run_report, args.junit_xml)
    if args.json:
        write_json(run_report, args.json)
    if args.report is not None:
        print(f"the report: {write_index(run_report, args.report)}")
    counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
    if counts.get("ok", 0) + counts.get("expected failure", 0) == len(paths):
        xfail = counts.get("expected failure", 0)
        more = f", {xfail} known failures fail as listed" if xfail else ""
        print(f"ALL {len(paths)} SCENARIOS AGREE{more} ({args.engine}; {said})")
        return 0
    print(
        f"{len(paths)} scenarios: "
        + ", ".join(f"{n} {o}" for o, n in counts.items())
        + f" ({args.engine}{'; ' + said if said else ''})"
    )
    if counts.get("FAULT") or counts.get("BAD") or counts.get("ERROR"):
        return 2
    if counts.get("FAIL") or counts.get("UNEXPECTED PASS"):
        return 1
    return 0
