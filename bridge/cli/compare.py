"""`compare FILE`: an engine on one scenario; on a divergence, the report
and a shrunk scenario in --regressions."""

from __future__ import annotations

import argparse
import math
import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from bridge.checking import purpose
from bridge.checking.causes import signature
from bridge.checking.changes import Trial
from bridge.checking.compare import Divergence, add_states
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import add_delivery
from bridge.checking.shrink import (
    Progress,
    cut,
    diverges_as,
    marked,
    said,
    shrink_budget,
    shrunk_for,
    shrunk_note,
    simplify,
    stopped_line,
    until_fault,
    way_of,
)
from bridge.checking.verdict import Skipped
from bridge.cli.options import (
    Commands,
    capabilities_option,
    checking,
    constants_option,
    engine_options,
    floor_option,
    live_model_option,
    shrink_options,
)
from bridge.formats.invocation import command
from bridge.formats.kit import shown
from bridge.formats.layout import named, read_checked, unique_name
from bridge.formats.profile import agreement
from bridge.formats.usage import read_proposal
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import write_regression
from bridge.outputs.writing import check_folder
from bridge.runs.corpus import make_engine, replay_checked
from bridge.runs.progress import Ticker
from bridge.wire.engine import limits_of
from bridge.wire.inprocess import ModelEngine
from model.profile import Profile, deviations
from scenarios.format import Scenario


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("compare", help="an engine on one scenario")
    command.add_argument("file", help="a scenario file, or a bundled scenario's name")
    engine_options(command)
    capabilities_option(command)
    constants_option(command)
    shrink_options(command, "the shrunk scenario")
    floor_option(command, "the scenario's events")
    live_model_option(command)
    command.add_argument(
        "--proposal",
        metavar="JSON",
        help="the profile and capabilities to expect the scenario under, as diagnose prints its "
        'proposal ({"profile": {...}, "capabilities": [...]}, or a file holding it): the model\'s '
        "side only, whatever the engine declares (default: what it declares)",
    )
    command.add_argument(
        "--keep-going",
        action="store_true",
        help="adopt the engine's value where a difference does not decide the rules to come "
        "(its line, a size, its views) and compare past it (default: off; bridge/PROTOCOL.md, "
        "Adoption)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = named(args.file)
    scenario = read_checked(path)
    check_folder(args.regressions, "--regressions")
    proposal = read_proposal(args.proposal)
    under = "" if proposal is None else given_by_proposal(*proposal)
    options = checking(args, trial=None if proposal is None else Trial(*proposal))
    subject = make_engine(options)
    try:
        profile, result, ready = replay_checked(path, scenario, subject, options)
    except Skipped as skipped:
        count = len(scenario.events)
        print(
            f"{Coverage(count, skipped=count).short(args.min_compared)}; SKIPPED {path}: {skipped}"
        )
        return 1
    finally:
        subject.close()
    notes = add_delivery(scenario, profile, result) + purpose.notes(scenario, result)
    found = result.divergence
    if found is None:
        print(
            f"{shown(path)}: {subject.name} agrees at all {result.answers} answers; "
            + (agreement(profile) if proposal is None else f"expected {under}")
        )
        print(f"  {result.coverage.summary()}")
        for note in notes:
            print(f"note: {note}")
        short = result.coverage.short(args.min_compared)
        print(short or f"AGREES; {result.coverage.compared_said(args.min_compared)}")
        return 0 if short is None else 1
    add_states(found, scenario, ModelEngine(profile), make_engine(options))
    print(found.report(shown(path), ("expected", subject.name)), flush=True)
    if result.after is not None:
        print(result.after.report(shown(path), ("expected", subject.name)), flush=True)
    print(f"  {result.coverage.summary()}", flush=True)
    key = signature(found)
    shrunk = shrunk_for(scenario)
    if shrunk is not None and shrunk[1] == key.id:
        print(
            f"already shrunk from {shrunk[0]} for {key.id}, and it still diverges so: "
            "not shrunk again",
            flush=True,
        )
        print(f"replay it: {compare_again(path, args.engine, args.proposal)}")
        return 1
    start = cut(scenario, found)
    way = way_of(found)
    print(f"shrinking ({shrink_budget(args)} at most), keeping {said(way)} ...", flush=True)
    kept = make_engine(options)
    seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds
    progress = Progress(start, args.shrink_tries)
    written = Written(path, scenario, found, subject.name, profile, args, result.coverage, under)
    try:
        with Ticker(lambda elapsed: f"  ... shrinking: {progress.said()} ({elapsed:.0f} s)", False):
            small, stopped = until_fault(
                lambda still: simplify(start, still, seconds, args.shrink_tries),
                diverges_as(
                    kept,
                    profile,
                    key,
                    strict=False,
                    lacks=result.lacks,
                    accepted=limits_of(ready.constants, options.constants, subject.name),
                    of=signature,
                ),
                start,
                progress,
            )
    except KeyboardInterrupt:
        kept.close()
        target, _, again = written.write(progress.best, said(way))
        print(
            f"interrupted after {progress.tries} tries: the smallest diverging scenario so far, "
            f"{len(progress.best.events)} of {len(scenario.events)} events, is kept: {target}\n"
            f"replay it: {again}",
            flush=True,
        )
        raise
    finally:
        kept.close()
    if stopped is not None:
        print(stopped_line(stopped), flush=True)
    target, page, again = written.write(small, said(way))
    print(
        f"shrunk to {len(small.events)} of {len(scenario.events)} events, still diverging "
        f"in {said(way)}: {target}"
    )
    print(f"the divergence shown: {page}")
    print(f"replay it: {again}")
    return 1


@dataclass(frozen=True)
class Written:
    """What `compare` writes of a shrunk scenario: the scenario with its
    transcript in --regressions, and the page of the divergence beside it."""

    path: Path
    scenario: Scenario
    found: Divergence
    engine: str
    profile: Profile
    args: argparse.Namespace
    coverage: Coverage
    under: str

    def write(self, small: Scenario, kept: str) -> tuple[Path, Path, str]:
        """Write `small` (marked with the rules the model refuses its events
        by, and as shrunk from the scenario first shrunk for the divergence
        kept) and its page, named after that first scenario; where each
        went, and the command that replays it."""
        origin = (shrunk_for(self.scenario) or (self.path.name,))[0]
        small = marked(
            replace(
                small,
                generator=f"bridge compare: shrunk from {self.path.name} against {self.engine}",
                notes={
                    **shrunk_note(origin, signature(self.found).id),
                    "engine": self.engine,
                    "events_before": len(self.scenario.events),
                    "kept": kept,
                },
            ),
            self.profile,
        )
        name = unique_name(self.path, self.engine, origin)
        target = write_regression(small, self.profile, self.args.regressions, name)
        replay = compare_again(target, self.args.engine, self.args.proposal)
        page = write_divergence_report(
            target.with_suffix(".html"),
            self.scenario,
            self.found,
            ("model", self.engine),
            self.profile,
            small,
            command=replay,
            coverage=self.coverage,
            under=self.under,
        )
        return target, page, replay


def given_by_proposal(profile: Profile, held: frozenset[str]) -> str:
    """How `compare` says the profile and capabilities --proposal gives the
    model's side (SPEC 10, bridge/PROTOCOL.md)."""
    differ = deviations(profile)
    said = "deviations: " + "; ".join(differ) if differ else "profile: SPEC"
    return f"under --proposal: {said}; capabilities: {', '.join(sorted(held)) or 'none'}"


def compare_again(path: Path, engine: str, proposal: str | None = None) -> str:
    """The command that compares `engine` on the scenario at `path` again
    (under `proposal`, when --proposal gave one)."""
    again = f"{command()} compare {shlex.quote(str(path))} --engine {shlex.quote(engine)}"
    return again if proposal is None else f"{again} --proposal {shlex.quote(proposal)}"
