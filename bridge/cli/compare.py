"""`compare FILE`: an engine on one scenario; on a divergence, the report
and a shrunk scenario in --regressions."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from bridge.checking.compare import add_states
from bridge.checking.delivery import delivery, notes
from bridge.checking.shrink import diverges, shrink
from bridge.checking.verdict import Skipped
from bridge.cli.options import Commands, checking, engine_options
from bridge.formats.layout import unique_name
from bridge.formats.profile import agreement
from bridge.formats.usage import program
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import REGRESSIONS, write_regression
from bridge.outputs.writing import check_folder
from bridge.runs.corpus import make_engine, replay_checked
from bridge.wire.inprocess import ModelEngine
from scenarios.format import read


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("compare", help="an engine on one scenario")
    command.add_argument("file", type=Path)
    engine_options(command)
    command.add_argument("--regressions", type=Path, default=REGRESSIONS, metavar="DIR")
    command.add_argument("--shrink-seconds", type=float, default=60.0)
    command.add_argument("--live-model", action="store_true")
    command.add_argument("--keep-going", action="store_true")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    scenario = read(path)
    check_folder(args.regressions, "--regressions")
    options = checking(args)
    subject = make_engine(options)
    try:
        profile, result, _ = replay_checked(path, scenario, subject, options)
    except Skipped as skipped:
        print(f"SKIPPED {path}: {skipped}")
        return 0
    finally:
        subject.close()
    found = result.divergence
    if found is None:
        print(
            f"{path}: {subject.name} agrees at all {result.answers} answers; {agreement(profile)}"
        )
        for note in notes(delivery(scenario, profile, result.sent, result.refused)):
            print(f"note: {note}")
        return 0
    add_states(found, scenario, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    last = len(scenario.events) if found.position is None else found.position + 1
    cut = replace(scenario, events=scenario.events[:last], lines=None)
    print(f"shrinking ({args.shrink_seconds:g} s at most) ...", flush=True)
    small = shrink(
        cut, lambda s: diverges(s, profile, lambda: make_engine(options)), args.shrink_seconds
    )
    small = replace(
        small,
        generator=f"bridge compare: shrunk from {path.name} against {subject.name}",
        notes={
            "shrunk_from": path.name,
            "engine": subject.name,
            "events_before": len(scenario.events),
        },
    )
    name = unique_name(path, subject.name)
    target = write_regression(small, profile, args.regressions, name)
    again = f"{program()} compare {target} --engine {json.dumps(subject.name)}"
    page = write_divergence_report(
        target.with_suffix(".html"),
        scenario,
        found,
        ("model", subject.name),
        profile,
        small,
        command=again,
    )
    print(f"shrunk to {len(small.events)} of {len(scenario.events)} events: {target}")
    print(f"the divergence shown: {page}")
    print(f"replay it: {again}")
    return 1
