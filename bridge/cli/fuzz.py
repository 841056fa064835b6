"""`fuzz`: generated scenarios against an engine until its time or its
histories are spent; a divergence of each cause not known shrunk, written
with its page, and said as `compare` says it, then the causes found."""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import sys
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from bridge.checking.causes import Cause, Signature, alike, read_known, signature, write_known
from bridge.checking.compare import add_states
from bridge.checking.shrink import (
    marked,
    said,
    shrink_budget,
    shrunk_note,
    size_of,
    stopped_line,
    until_fault,
)
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
    shrink_options,
    shrink_said,
)
from bridge.formats.invocation import command
from bridge.formats.layout import slug
from bridge.formats.limits import NONE
from bridge.formats.profile import agreement, declared
from bridge.formats.usage import UsageError, read_capabilities, read_constants, read_profile
from bridge.outputs.page import write_divergence_report
from bridge.outputs.regressions import REGRESSIONS, write_regression
from bridge.outputs.writing import check_file, check_folder
from bridge.runs.corpus import Options, make_engine
from bridge.runs.fuzz import (
    DEFAULT_SECONDS,
    Fuzzer,
    replay_kept,
    round_seed,
    search,
    shrink_starts,
    smallest,
    started,
)
from bridge.runs.tally import counted
from bridge.wire.engine import Engine, EngineFault
from bridge.wire.inprocess import ModelEngine
from scenarios.arguments import positive, positive_int
from scenarios.shard import Shard

if TYPE_CHECKING:
    from hypothesis.database import ExampleDatabase


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "fuzz",
        help="generated scenarios until the time is spent, a divergence of each cause shrunk",
    )
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
    command.add_argument(
        "--max-causes",
        type=positive_int,
        metavar="N",
        help="stop once N causes are found (default: search on until the time or the "
        "histories are spent)",
    )
    command.add_argument(
        "--known-causes",
        type=Path,
        metavar="FILE",
        help="causes to pass over, one id a line, as corpus and fuzz --write-known-causes "
        "write them (default: none)",
    )
    command.add_argument(
        "--write-known-causes",
        type=Path,
        metavar="FILE",
        help="write the causes passed over and found as such a list, to pass over next time "
        "(default: none)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The `fuzz` command: 0 no divergence of a cause not known, having
    compared events over the whole run (at least `--min-compared` of them),
    1 some (written, shrunk) or too little compared, 2 an engine fault or
    bad input."""
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
    known = [] if args.known_causes is None else read_known(args.known_causes)
    if args.write_known_causes is not None:
        check_file(args.write_known_causes, "--write-known-causes")
    subject = make_engine(options)
    try:
        return fuzz(args, options, subject, seed, (seconds, shard), (examples, kept_in), known)
    finally:
        subject.close()


def example_database(given: str | None, local: Path) -> tuple[ExampleDatabase | None, str]:
    """The database `--database` (or OPTCHAT_DATABASE) names, None for none
    (or one of the environment's that cannot be used: scenarios/database.py
    `checked`), and how the line that repeats the search gives it (the
    variable, not its value, when it came from there: a URL may hold a
    password); `local` is the folder paired with a read-only one."""
    from scenarios.database import VARIABLE, checked, database

    try:
        url = checked(given, "", str(local))
    except ValueError as error:
        raise UsageError(str(error)) from None
    if url is None:
        return None, ""
    return database(url, str(local)), shlex.quote(given) if given else f'"${VARIABLE}"'


def kept(
    fuzzer: Fuzzer, seed: int, max_events: int, examples: ExampleDatabase, given: str | None
) -> None:
    """Replay the histories the example database kept, saying so, and what
    they found."""
    from scenarios.database import chosen, without_password

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
    budget: tuple[float | None, Shard],
    database: tuple[ExampleDatabase | None, str],
    known: list[Signature],
) -> int:
    """Search, shrink and report a divergence of each cause not `known`, in
    rounds until the time or the histories (of the shard) are spent, the
    histories kept in the example `database` first (with how the repeat
    line names it): 0 none found, 1 some."""
    seconds, shard = budget
    examples, kept_in = database
    shrink_seconds = math.inf if args.shrink_seconds is None else args.shrink_seconds
    fuzzer = started(subject, options, seconds, args.shrink_tries, shrink_seconds)
    fuzzer.known, listed = list(known), known
    profile = fuzzer.profile
    histories = None if args.histories is None else shard.share(args.histories)
    again = repeat_line(args, seed, shard, kept_in)
    limits = [f"{seconds:g} s"] if seconds is not None else []
    limits += [f"{histories} histories"] if histories is not None else []
    part = f", shard {shard} (seed {shard.seed(seed)})" if shard.count > 1 else ""
    passing = f", passing over {counted(len(listed), 'known cause')}" if listed else ""
    print(
        f"fuzzing {subject.name} ({declared(profile)}{lacked(fuzzer)}) with seed {seed}{part}, "
        f"for {' or '.join(limits)} at most{passing}",
        flush=True,
    )
    if histories == 0:
        print(
            f"shard {shard}: no history left to it of the {args.histories} asked for "
            f"(--histories {args.histories} over {shard.count} shards): nothing checked"
        )
        return 0
    name = f"fuzz-{shard.seed(seed)}"
    found: list[Cause] = []
    try:
        if examples is not None:
            kept(fuzzer, shard.seed(seed), args.max_events, examples, args.database)
        for number in count():
            if number:
                if fuzzer.fault is not None:
                    break
                fuzzer.next_round()
            if fuzzer.first is None:
                left = None if histories is None else histories - fuzzer.histories
                if (left is not None and left <= 0) or fuzzer.out_of_time():
                    break
                if fuzzer.fault is not None:
                    break
                if number:
                    print(f"searching on for divergences of other causes (round {number + 1}) ...")
                search(
                    fuzzer, round_seed(shard.seed(seed), number), left, args.max_events, examples
                )
            if fuzzer.first is None:
                break
            cause = shrunk_cause(args, options, fuzzer, (name, seed), again)
            if cause is not None:
                found.append(cause)
                fuzzer.known.append(cause.signature)
                fuzzer.shrunk[cause.signature] = cause.shrunk
            if len(found) == args.max_causes:
                break
    except KeyboardInterrupt:
        print("interrupted: the search ends; the causes found are written", flush=True)
        summary(args, fuzzer, found, listed, seed, again, interrupted=True)
        raise
    summary(args, fuzzer, found, listed, seed, again)
    if fuzzer.fault is not None and fuzzer.first is None:
        assert fuzzer.faulted is not None
        path = write_regression(
            fuzzer.faulted,
            profile,
            args.regressions,
            f"{name}-fault-{slug(subject.name)}",
        )
        print(f"the history the engine failed on: {path}\nrepeat: {again}", flush=True)
        if not found:
            raise fuzzer.fault
        print(f"ENGINE FAULT (not a divergence) after the causes above: {fuzzer.fault}")
    if found:
        return 1
    short = fuzzer.coverage().short(args.min_compared)
    if short is not None:
        print(f"{short} generated ({fuzzer.skipped} histories SKIPPED)")
        return 1
    return 0


def repeat_line(args: argparse.Namespace, seed: int, shard: Shard, kept_in: str) -> str:
    """The command that repeats the search (`kept_in`: how it names the
    example database, if any)."""
    again = f"{command()} fuzz --engine {shlex.quote(args.engine)} --seed {seed}"
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
    if args.known_causes is not None:
        again += f" --known-causes {shlex.quote(str(args.known_causes))}"
    if args.max_causes is not None:
        again += f" --max-causes {args.max_causes}"
    again += shrink_said(args)
    if args.regressions != REGRESSIONS:
        again += f" --regressions {shlex.quote(str(args.regressions))}"
    return again


def summary(
    args: argparse.Namespace,
    fuzzer: Fuzzer,
    found: list[Cause],
    listed: list[Signature],
    seed: int,
    again: str,
    interrupted: bool = False,
) -> None:
    """What the whole search did: its throughput, the histories passed over
    for a known cause, the causes found, and the known-causes list written.
    A search `interrupted` that found nothing says no verdict on the engine."""
    skipped = f", {fuzzer.skipped} skipped (the engine cannot take them)" if fuzzer.skipped else ""
    spent = fuzzer.search_seconds()
    print(
        f"throughput: {fuzzer.histories} histories, {fuzzer.events} events in {spent:.1f} s: "
        f"{fuzzer.rate():.0f} events/s{skipped}",
        flush=True,
    )
    if fuzzer.passed:
        each = ", ".join(f"{cause} {n}" for cause, n in fuzzer.passed.most_common())
        passed = sum(fuzzer.passed.values())
        print(
            f"passed over {passed} diverging {'history' if passed == 1 else 'histories'} of known "
            f"causes ({each}; {fuzzer.past} replayed again without the event it showed at)"
        )
    if found:
        print(f"fuzz found {counted(len(found), 'cause')} of divergence:")
        for number, cause in enumerate(found, start=1):
            print(f"  {number}. {cause.id}: {cause.signature.said()}\n     {cause.written}")
        print(f"repeat the search: {again}")
    elif fuzzer.fault is None:
        known = f" of a cause not known (passing over {len(listed)})" if listed else ""
        compared = fuzzer.coverage().compared_said(args.min_compared)
        said = f"{fuzzer.engine.name} agrees, and {agreement(fuzzer.profile)}"
        if interrupted:
            said = "INTERRUPTED before the search was done, so no verdict"
        print(
            f"no divergence{known} in {fuzzer.histories} histories, {fuzzer.events} events "
            f"({fuzzer.rate():.0f} events/s) in {spent:.1f} s: {said}; {compared}; "
            f"seed {seed}\nrepeat: {again}"
        )
    if args.write_known_causes is not None:
        kept = [*listed, *(c for c in found if c.signature not in listed)]
        write_known(args.write_known_causes, kept, "--write-known-causes")
        print(f"wrote {args.write_known_causes}: {counted(len(kept), 'known cause')}")


def shrunk_cause(
    args: argparse.Namespace,
    options: Options,
    fuzzer: Fuzzer,
    run: tuple[str, int],
    again: str,
) -> Cause | None:
    """The divergence the round found, shrunk by Hypothesis and then by the
    bridge, and its cause: written (named after the `run`'s name, with its
    seed) with its page and said as `compare` says it; None when it shrank
    to a known cause after all (passed over)."""
    name, seed = run
    first = fuzzer.first
    assert first is not None
    subject, profile = fuzzer.engine, fuzzer.profile
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
        found = fuzzer.replay(final)
    except EngineFault as fault:
        if stopped is None:
            print(stopped_line(fault), flush=True)
        fuzzer.fault = fuzzer.fault or fault
        final, found = marked(first.scenario, profile), first.divergence
    if found is None or signature(found) != fuzzer.key():
        raise EngineFault(
            f"engine {subject.name!r} diverged on a scenario, then answered the same "
            "scenario otherwise: its answers do not depend on the events alone"
        )
    named = signature(found).keeping(final)
    shown, probe = Cause(named, shrunk=final), fuzzer.probe()
    known = next(
        (k for k in fuzzer.known if alike(Cause(k, shrunk=fuzzer.shrunk.get(k)), shown, probe)),
        None,
    )
    if known is not None:
        fuzzer.settled[fuzzer.key()] += 1
        fuzzer.passed[known.id] += 1
        print(f"it shrank to known cause {known.id} ({named.id}): passed over", flush=True)
        return None
    notes = {**final.notes, **shrunk_note(name, named.provisional().id), "cause": named.id}
    final = replace(final, notes=notes)
    written = f"{name}-{re.sub(r'[^A-Za-z0-9._-]+', '-', named.id)}-{slug(subject.name)}"
    path = write_regression(final, profile, args.regressions, written)
    add_states(found, final, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    titled = replace(final, source=str(path))  # the page's title names its file
    page = write_divergence_report(
        path.with_suffix(".html"), titled, found, ("model", subject.name), profile, titled
    )
    profile_given = f" --profile {shlex.quote(str(args.profile))}" if args.profile else ""
    engine = shlex.quote(args.engine)
    print(
        f"cause {named.id}: {named.said()}\n"
        f"shrunk to {len(final.events)} of {first.generated} events "
        f"({fuzzer.tries} tries), still diverging in {said(fuzzer.way())}: {path}\n"
        f"the divergence shown: {page}\n"
        f"replay it: {command()} compare {shlex.quote(str(path))} --engine {engine}"
        f"{profile_given}\n"
        f"repeat the search: {again}",
        flush=True,
    )
    return Cause(named, [str(path)], str(path), final, first.generated, str(path))
