"""`fuzz`: generated scenarios against an engine until one diverges; the
divergence shrunk, written with its page, and said as `compare` says it."""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bridge.checking.compare import add_states
from bridge.checking.shrink import marked, said, stopped_line, until_fault, way_of
from bridge.cli.options import (
    TIMEOUT,
    Commands,
    capabilities_option,
    constants_option,
    engine_options,
    floor_option,
    named_engine,
    shard_of,
    shard_option,
    shrink_budget,
    shrink_options,
    shrink_said,
)
from bridge.formats.invocation import command
from bridge.formats.layout import slug
from bridge.formats.limits import NONE
from bridge.formats.profile import agreement
from bridge.formats.usage import UsageError, read_capabilities, read_constants, read_profile
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import REGRESSIONS, write_regression
from bridge.outputs.writing import check_folder
from bridge.runs.corpus import Options, make_engine
from bridge.runs.fuzz import (
    DEFAULT_SECONDS,
    Fuzzer,
    replay_kept,
    search,
    shrink_starts,
    size_of,
    smallest,
    started,
)
from bridge.wire.engine import Engine, EngineFault
from bridge.wire.inprocess import ModelEngine
from scenarios.arguments import positive, positive_int
from scenarios.shard import Shard

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("fuzz", help="generated scenarios until one diverges, shrunk")
    engine_options(command)
    capabilities_option(command)
    constants_option(command)
    command.add_argument(
        "--seconds",
        type=positive,
        help=f"stop after this long (default {DEFAULT_SECONDS:g}, or none with --histories)",
    )
    command.add_argument(
        "--histories", type=positive_int, help="stop after this many histories (default: none)"
    )
    command.add_argument("--seed", type=int, help="repeat a run (default: random, printed)")
    command.add_argument(
        "--max-events", type=positive_int, default=100, help="the longest history (default 100)"
    )
    shrink_options(command, "a divergence found")
    floor_option(command, "the generated histories' events")
    command.add_argument(
        "--database",
        metavar="URL",
        help="keep diverging histories here and replay them first: a folder, redis://HOST:PORT/DB "
        "or github-artifacts:OWNER/REPO (default: $OPTCHAT_DATABASE, else none)",
    )
    shard_option(command, "its own seeds from --seed (the same on all), its share of --histories")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The `fuzz` command: 0 no divergence, having compared events (at least
    `--min-compared` of them), 1 a divergence (written, shrunk) or too little
    compared, 2 an engine fault or bad input."""
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print(
            "optchat-spec fuzz: fuzzing needs Hypothesis, from the `fuzz` extra (the `laws` "
            "extra has it too): pip install 'optchat-spec[fuzz]'",
            file=sys.stderr,
        )
        return 2
    shard = shard_of(args)
    if shard.count > 1 and args.seed is None:
        raise UsageError("--shard needs --seed: the run's seed, the same on every shard")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    examples, kept_in = example_database(args.database, args.regressions / "examples")
    seconds = args.seconds
    if seconds is None and args.histories is None:
        seconds = DEFAULT_SECONDS
    options = Options(
        named_engine(args),
        args.timeout,
        read_profile(args.profile),
        capabilities=read_capabilities(args.capabilities),
        constants=read_constants(args.constants),
    )
    check_folder(args.regressions, "--regressions")
    subject = make_engine(options)
    try:
        return fuzz(args, options, subject, seed, seconds, shard, examples, kept_in)
    finally:
        subject.close()


def example_database(given: str | None, local: Path) -> tuple[ExampleDatabase | None, str]:
    """The database `--database` (or OPTCHAT_DATABASE) names, None for none,
    and how the line that repeats the search gives it (the variable, not
    its value, when it came from there: a URL may hold a password); `local`
    is the folder paired with a read-only one."""
    from scenarios.database import VARIABLE, chosen, database

    url = chosen(given, "")
    if not url:
        return None, ""
    try:
        found = database(url, str(local))
    except ValueError as error:
        raise UsageError(str(error)) from None
    return found, shlex.quote(given) if given else f'"${VARIABLE}"'


def without_password(url: str) -> str:
    """A database's URL as the run's lines say it: no password."""
    return re.sub(r"^([a-z]+://)[^/@]*@", r"\1***@", url)


def kept(
    fuzzer: Fuzzer, seed: int, max_events: int, examples: ExampleDatabase, given: str | None
) -> None:
    """Replay the histories the example database kept, saying so, and what
    they found."""
    from scenarios.database import chosen

    named = without_password(chosen(given, ""))
    print(f"replaying the histories kept in the example database {named} first", flush=True)
    replay_kept(fuzzer, seed, max_events, examples)
    count = fuzzer.replayed
    replayed = f"{count} {'history' if count == 1 else 'histories'} replayed"
    if count == 0:
        said = "it keeps no history for this search yet"
    elif fuzzer.first is not None:
        said = f"{replayed}; history {count} still diverges"
    elif fuzzer.fault is not None:
        said = f"{replayed}; the engine failed on history {count}"
    else:
        said = f"{replayed}; none diverges now (Hypothesis takes them out of it)"
    print(f"the example database: {said}", flush=True)


def lacked(fuzzer: Fuzzer) -> str:
    """What the engine does not implement, and the constants it accepts when
    it limits them, as the run's first line says it."""
    out = ""
    if fuzzer.lacks:
        out += "; not implemented: " + ", ".join(c.name for c in fuzzer.lacks)
    if fuzzer.accepted != NONE:
        out += f"; constants accepted: {fuzzer.accepted}"
    return out


def fuzz(
    args: argparse.Namespace,
    options: Options,
    subject: Engine,
    seed: int,
    seconds: float | None,
    shard: Shard,
    examples: ExampleDatabase | None,
    kept_in: str = "",
) -> int:
    shrink_seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds
    fuzzer = started(subject, options, seconds, args.shrink_tries, shrink_seconds)
    profile = fuzzer.profile
    engine = shlex.quote(args.engine)
    again = f"{command()} fuzz --engine {engine} --seed {seed}"
    histories = None if args.histories is None else shard.share(args.histories)
    if shard.count > 1:
        again += f" --shard {shard}"
    if args.histories is not None:
        again += f" --histories {args.histories}"
    if args.seconds is not None:
        again += f" --seconds {args.seconds:g}"
    if kept_in:
        again += f" --database {kept_in}"
    if args.max_events != 100:
        again += f" --max-events {args.max_events}"
    if args.profile is not None:
        again += f" --profile {shlex.quote(str(args.profile))}"
    if args.capabilities is not None:
        again += f" --capabilities {shlex.quote(args.capabilities)}"
    if args.constants is not None:
        again += f" --constants {shlex.quote(str(args.constants))}"
    if args.timeout != TIMEOUT:
        again += f" --timeout {args.timeout:g}"
    again += shrink_said(args)
    if args.regressions != REGRESSIONS:
        again += f" --regressions {shlex.quote(str(args.regressions))}"
    limits = [f"{seconds:g} s"] if seconds is not None else []
    limits += [f"{histories} histories"] if histories is not None else []
    part = f", shard {shard} (seed {shard.seed(seed)})" if shard.count > 1 else ""
    print(
        f"fuzzing {subject.name} ({agreement(profile)}{lacked(fuzzer)}) with seed {seed}{part}, "
        f"for {' or '.join(limits)} at most",
        flush=True,
    )
    if histories == 0:
        print(
            f"shard {shard}: no history left to it of the {args.histories} asked for "
            f"(--histories {args.histories} over {shard.count} shards): nothing checked"
        )
        return 0
    name = f"fuzz-{shard.seed(seed)}"
    if examples is not None:
        kept(fuzzer, shard.seed(seed), args.max_events, examples, args.database)
    if fuzzer.first is None and fuzzer.fault is None:
        search(fuzzer, shard.seed(seed), histories, args.max_events, examples)
    spent = fuzzer.first.seconds if fuzzer.first else fuzzer.seconds()
    skipped = f", {fuzzer.skipped} skipped (the engine cannot take them)" if fuzzer.skipped else ""
    print(
        f"throughput: {fuzzer.histories} histories, {fuzzer.events} events in {spent:.1f} s: "
        f"{fuzzer.rate():.0f} events/s{skipped}",
        flush=True,
    )
    if fuzzer.fault is not None and fuzzer.first is None:
        assert fuzzer.faulted is not None
        path = write_regression(
            fuzzer.faulted,
            profile,
            args.regressions,
            f"{name}-fault-{slug(subject.name)}",
        )
        print(f"the history the engine failed on: {path}\nrepeat: {again}", flush=True)
        raise fuzzer.fault
    if fuzzer.first is None:
        covered = fuzzer.coverage()
        short = covered.short(args.min_compared)
        print(
            f"no divergence in {fuzzer.histories} histories, {fuzzer.events} events "
            f"({fuzzer.rate():.0f} events/s) in {spent:.1f} s: {subject.name} "
            f"{agreement(profile)}; {covered.compared_said(args.min_compared)}; seed {seed}\n"
            f"repeat: {again}"
        )
        if short is not None:
            print(f"{short} generated ({fuzzer.skipped} histories SKIPPED)")
            return 1
        return 0
    first = fuzzer.first
    where = f"history {fuzzer.histories}"
    if fuzzer.histories <= fuzzer.replayed:
        where += ", one kept in the example database"
    print(
        f"DIVERGED after {first.seconds:.1f} s, at {where} "
        f"({first.generated} events): {first.divergence.summary()}",
        flush=True,
    )
    print(
        f"shrinking ({shrink_budget(args)} at most), keeping {said(fuzzer.way())} ...",
        flush=True,
    )
    starts = shrink_starts(fuzzer)
    print(
        f"Hypothesis shrank it to {min(len(s.events) for s in starts)} events "
        f"in {fuzzer.seconds() - first.seconds:.1f} s",
        flush=True,
    )
    stopped = fuzzer.fault
    if stopped is None:
        small, stopped = until_fault(
            lambda still: smallest(fuzzer, starts, still), fuzzer.diverges, starts[0]
        )
    else:
        small = min(starts, key=size_of)
    if stopped is not None:
        print(stopped_line(stopped), flush=True)
    final = marked(
        replace(
            small,
            generator=f"bridge fuzz: shrunk from a generated history against {subject.name}",
            seed=seed,
            notes={
                "engine": subject.name,
                "events_before": first.generated,
                "kept": said(fuzzer.way()),
            },
        ),
        profile,
    )
    try:
        found = fuzzer.replay(final, keep_going=False)
    except EngineFault as fault:
        if stopped is None:
            print(stopped_line(fault), flush=True)
        final, found = marked(first.scenario, profile), first.divergence
    if found is None or way_of(found) != fuzzer.way():
        raise EngineFault(
            f"engine {subject.name!r} diverged on a scenario, then answered the same "
            "scenario otherwise: its answers do not depend on the events alone"
        )
    path = write_regression(final, profile, args.regressions, f"{name}-{slug(subject.name)}")
    add_states(found, final, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    named = replace(final, source=str(path))  # the page's title names its file
    page = write_divergence_report(
        path.with_suffix(".html"), named, found, ("model", subject.name), profile, named
    )
    profile_given = f" --profile {shlex.quote(str(args.profile))}" if args.profile else ""
    print(
        f"shrunk to {len(final.events)} of {first.generated} events "
        f"({fuzzer.tries} tries), still diverging in {said(fuzzer.way())}: {path}\n"
        f"the divergence shown: {page}\n"
        f"replay it: {command()} compare {shlex.quote(str(path))} --engine {engine}"
        f"{profile_given}\n"
        f"repeat the search: {again}"
    )
    return 1
