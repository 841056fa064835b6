"""`fuzz`: generated scenarios against an engine until one diverges; the
divergence shrunk, written with its page, and said as `compare` says it."""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace
from pathlib import Path

from bridge.checking.compare import add_states
from bridge.checking.shrink import marked
from bridge.cli.options import Commands, engine_options, positive, positive_int
from bridge.formats.layout import slug
from bridge.formats.profile import agreement
from bridge.formats.usage import read_profile
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import REGRESSIONS, write_regression
from bridge.outputs.writing import check_folder
from bridge.runs.corpus import Options, make_engine
from bridge.runs.fuzz import DEFAULT_SECONDS, search, shrink_starts, smallest, started
from bridge.wire.engine import Engine, EngineFault
from bridge.wire.inprocess import ModelEngine


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("fuzz", help="generated scenarios until one diverges, shrunk")
    engine_options(command)
    command.add_argument(
        "--seconds",
        type=positive,
        help=f"stop after this long (default {DEFAULT_SECONDS:g}, or none with --histories)",
    )
    command.add_argument("--histories", type=positive_int, help="stop after this many histories")
    command.add_argument("--seed", type=int, help="repeat a run (default: random, printed)")
    command.add_argument(
        "--max-events", type=positive_int, default=100, help="the longest history (default 100)"
    )
    command.add_argument("--regressions", type=Path, default=REGRESSIONS, metavar="DIR")
    command.add_argument(
        "--shrink-seconds", type=positive, default=60.0, help="shrinking's budget (default 60)"
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The `fuzz` command: 0 no divergence, 1 a divergence (written, shrunk), 2
    an engine fault or bad input."""
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print(
            "optchat-spec fuzz: fuzzing needs Hypothesis, from the `fuzz` extra (the `laws` "
            "extra has it too): pip install 'optchat-spec[fuzz]'",
            file=sys.stderr,
        )
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    seconds = args.seconds
    if seconds is None and args.histories is None:
        seconds = DEFAULT_SECONDS
    options = Options(args.engine, args.timeout, read_profile(args.profile))
    check_folder(args.regressions, "--regressions")
    subject = make_engine(options)
    try:
        return fuzz(args, options, subject, seed, seconds)
    finally:
        subject.close()


def fuzz(
    args: argparse.Namespace, options: Options, subject: Engine, seed: int, seconds: float | None
) -> int:
    fuzzer = started(subject, options, seconds, args.shrink_seconds)
    profile = fuzzer.profile
    engine = json.dumps(subject.name)
    again = f"python -m bridge fuzz --engine {engine} --seed {seed}"
    if args.histories is not None:
        again += f" --histories {args.histories}"
    if args.max_events != 100:
        again += f" --max-events {args.max_events}"
    if args.profile is not None:
        again += f" --profile {args.profile}"
    limits = [f"{seconds:g} s"] if seconds is not None else []
    limits += [f"{args.histories} histories"] if args.histories is not None else []
    print(
        f"fuzzing {subject.name} ({agreement(profile)}) with seed {seed}, "
        f"for {' or '.join(limits)} at most",
        flush=True,
    )
    search(fuzzer, seed, args.histories, args.max_events)
    spent = fuzzer.first.seconds if fuzzer.first else fuzzer.seconds()
    skipped = f", {fuzzer.skipped} skipped (the engine cannot take them)" if fuzzer.skipped else ""
    print(
        f"throughput: {fuzzer.histories} histories, {fuzzer.events} events in {spent:.1f} s: "
        f"{fuzzer.rate():.0f} events/s{skipped}",
        flush=True,
    )
    if fuzzer.fault is not None:
        assert fuzzer.faulted is not None
        path = write_regression(
            fuzzer.faulted, profile, args.regressions, f"fuzz-{seed}-fault-{slug(subject.name)}"
        )
        print(f"the history the engine failed on: {path}\nrepeat: {again}", flush=True)
        raise fuzzer.fault
    if fuzzer.first is None:
        print(
            f"no divergence in {fuzzer.histories} histories, {fuzzer.events} events "
            f"({fuzzer.rate():.0f} events/s) in {spent:.1f} s: {subject.name} "
            f"{agreement(profile)}; seed {seed}\nrepeat: {again}"
        )
        return 0
    first = fuzzer.first
    print(
        f"DIVERGED after {first.seconds:.1f} s, at history {fuzzer.histories} "
        f"({first.generated} events): {first.divergence.summary()}",
        flush=True,
    )
    print(f"shrinking ({args.shrink_seconds:g} s at most) ...", flush=True)
    starts = shrink_starts(fuzzer)
    print(
        f"Hypothesis shrank it to {min(len(s.events) for s in starts)} events "
        f"in {fuzzer.seconds() - first.seconds:.1f} s",
        flush=True,
    )
    small = smallest(fuzzer, starts)
    final = marked(
        replace(
            small,
            generator=f"bridge fuzz: shrunk from a generated history against {subject.name}",
            seed=seed,
            notes={"engine": subject.name, "events_before": first.generated},
        ),
        profile,
    )
    found = fuzzer.replay(final, keep_going=False)
    if found is None:
        raise EngineFault(
            f"engine {subject.name!r} diverged on a scenario, then agreed on the same "
            "scenario: its answers do not depend on the events alone"
        )
    path = write_regression(final, profile, args.regressions, f"fuzz-{seed}-{slug(subject.name)}")
    add_states(found, final, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    page = write_divergence_report(
        path.with_suffix(".html"), final, found, ("model", subject.name), profile, final
    )
    profile_given = f" --profile {args.profile}" if args.profile is not None else ""
    print(
        f"shrunk to {len(final.events)} of {first.generated} events "
        f"({fuzzer.tries} tries): {path}\n"
        f"the divergence shown: {page}\n"
        f"replay it: python -m bridge compare {path} --engine {engine}{profile_given}\n"
        f"repeat the search: {again}"
    )
    return 1
