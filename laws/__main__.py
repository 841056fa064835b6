"""`python -m laws`: check every law of SPEC 8 and print one table.

Exit 0 when no law that ran is broken: each holds, is not applicable under
the engine profile given, or is INCONCLUSIVE (a prover or solver ran out of
its budget before deciding: no counterexample, not counted as holding, said
in the table, in a paragraph of its own and on the last line); 1 when a law
is broken or changed since LAWS.lock; 2 on a usage error, a damaged
LAWS.lock, or a HARNESS ERROR (the histories or a check failed outside
every law).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import random
import shlex
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from multiprocessing import Process, Queue
from pathlib import Path

from laws import lock
from laws.all import all_laws
from laws.history import HEARTBEAT, Verdicts, check_step_laws, merged
from laws.registry import (
    LOCAL,
    PROFILES,
    Broken,
    Held,
    Inconclusive,
    Law,
    NotApplicable,
    Profile,
)
from model.profile import Profile as EngineProfile
from model.profile import deviations, from_options
from scenarios.arguments import jobs_option
from scenarios.database import checked as checked_database
from scenarios.database import chosen as chosen_database
from scenarios.database import named as named_database
from scenarios.format import loads
from scenarios.shard import Shard, parse

Result = Held | Broken | NotApplicable | Inconclusive


def progress(text: str) -> None:
    print(f"  ... {text}", file=sys.stderr, flush=True)


@contextmanager
def ticking(name: str) -> Iterator[None]:
    """Say every HEARTBEAT seconds that law `name` is still being checked
    (the deep profile's longest check law takes minutes)."""
    began = time.perf_counter()
    done = threading.Event()

    def tick() -> None:
        while not done.wait(HEARTBEAT):
            progress(f"{name}: still checking ({time.perf_counter() - began:.0f} s)")

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()


def check_law(name: str, profile: Profile) -> tuple[Result, float]:
    """Run one check law by name (in the worker process). Anything it raises
    but a Broken or an Inconclusive is that law broken, with the exception."""
    law = next(law for law in all_laws() if law.name == name)
    began = time.perf_counter()
    progress(f"{law.name}")
    try:
        with ticking(law.name):
            result: Result = law.function(profile)
    except (Broken, Inconclusive) as outcome:
        result = outcome
    except Exception as error:
        result = Broken(law.name, law.statement, f"{type(error).__name__}: {error}")
    return result, time.perf_counter() - began


def engine_profile(path: Path | None) -> EngineProfile | None:
    """The engine profile of `--engine-profile FILE` (SPEC 10), or None;
    ValueError names the file and what is wrong with it."""
    if path is None:
        return None
    try:
        return from_options(loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        raise ValueError(f"--engine-profile {path}: {error}") from None


PROG = "python -m laws"
"""How a shell starts these laws, unless the caller says (the runner's `laws`)."""


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=prog, description=__doc__)
    top.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    top.add_argument("--only", nargs="+", metavar="LAW", help="check only these laws")
    top.add_argument("--relock", action="store_true", help="rewrite LAWS.lock and stop")
    top.add_argument("--seed", type=int, help="explore from this seed (the deep profile draws one)")
    top.add_argument(
        "--database",
        metavar="URL",
        help="where an exploring run keeps failing examples and replays them from: a folder, "
        "redis://HOST:PORT/DB or github-artifacts:OWNER/REPO (default: $OPTCHAT_DATABASE, "
        f"else {LOCAL})",
    )
    top.add_argument(
        "--shard",
        metavar="K/N",
        help="shard K of a run over N machines (needs --seed, the same on all): its own "
        "histories; the check laws (proofs, examples) run on shard 1 only",
    )
    top.add_argument(
        "--engine-profile",
        type=Path,
        metavar="FILE",
        help="check every law under this engine profile (SPEC 10) only",
    )
    top.add_argument(
        "--regressions",
        type=Path,
        default=Path("optchat-regressions") / "laws",
        help="where counterexamples are written as scenarios",
    )
    jobs_option(top, "worker processes (the step laws' histories in shards, the check laws)")
    top.add_argument(
        "--no-shrink",
        action="store_true",
        help="judge every law, but report counterexamples as found, unshrunk (make mutants)",
    )
    top.add_argument(
        "--first-break",
        action="store_true",
        help="stop at the first broken law, without shrinking it (for deliberate breaks)",
    )
    return top


def campaign(args: argparse.Namespace) -> tuple[Shard, str | None]:
    """The shard this run is and the example database's URL, checked (None:
    the environment's cannot be used, said in a line of warning); ValueError,
    in one line, for a shard that is not K/N, a shard without the run's
    seed, or a `--database` that cannot be used."""
    shard = parse(args.shard) if args.shard is not None else Shard()
    if shard.count > 1 and args.seed is None:
        raise ValueError("--shard needs --seed: the run's seed, the same on every shard")
    if args.seed is None and args.profile != "deep":
        named_database(chosen_database(args.database, LOCAL), LOCAL)  # its form only:
        return shard, None  # a derandomized run keeps no example
    return shard, checked_database(args.database, LOCAL, LOCAL)


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """Check the laws as `argv` asks; `prog` is how the user started them,
    named in what this prints to run them again."""
    args = parser(prog).parse_args(argv)
    laws = all_laws()
    if args.relock:
        lock.relock(laws)
        print(f"wrote {lock.LOCK} for {len(laws)} laws")
        return 0
    names = {law.name for law in laws}
    unknown = [name for name in args.only or [] if name not in names]
    if unknown:
        print(f"laws: no law is named {', '.join(unknown)}", file=sys.stderr)
        return 2
    try:
        changed = lock.changes(laws)
    except lock.LockError as error:
        print(f"laws: {error}", file=sys.stderr)
        return 2
    try:
        shard, url = campaign(args)
        engine = engine_profile(args.engine_profile)
    except ValueError as error:
        print(f"laws: {error}", file=sys.stderr)
        return 2
    chosen = [law for law in laws if args.only is None or law.name in args.only]
    if not shard.first:
        chosen = [law for law in chosen if law.kind == "step"]
        if not chosen:
            print(f"shard {shard}: no law to check here (the check laws run on shard 1)")
            return 0
    profile = PROFILES[args.profile]
    if args.seed is not None or profile.name == "deep":
        seed = args.seed if args.seed is not None else random.randrange(1 << 32)
        again = f"{prog} --profile {profile.name} --seed {seed}"
        if args.only is not None:
            again += f" --only {' '.join(args.only)}"
        if args.engine_profile is not None:
            again += f" --engine-profile {shlex.quote(str(args.engine_profile))}"
        if shard.count > 1:
            again += f" --shard {shard}"
            print(
                f"shard {shard}: its own histories (seed {shard.seed(seed)}), "
                + ("and the check laws" if shard.first else "the check laws on shard 1")
            )
        histories = shard.share(profile.histories)
        profile = replace(profile, seed=shard.seed(seed), database=url, histories=histories)
        print(f"seed {seed} (again: {again})")
    profile = replace(profile, processes=args.jobs)
    if args.first_break:
        profile = replace(profile, first_break=True, shrink=False)
    if args.no_shrink:
        profile = replace(profile, shrink=False)
    began = time.perf_counter()
    try:
        results, seconds, summary, harness, interrupted = run(
            chosen, profile, engine, args.regressions, args.jobs
        )
    except Exception:
        print(f"HARNESS ERROR: the laws run failed outside every law\n{traceback.format_exc()}")
        return 2
    print_table(chosen, results, seconds)
    if summary:
        print(summary)
    broken = [r for r in results.values() if isinstance(r, Broken)]
    unsure = [r for r in results.values() if isinstance(r, Inconclusive)]
    for result in [*broken, *unsure]:
        print(f"\n{result}")
    for line in changed:
        print(f"\nLAWS.lock: {line}")
    total = time.perf_counter() - began
    if interrupted:
        judged = sum(law.name in results for law in chosen)
        verdict = f"{len(broken)} BROKEN, " if broken else ""
        print(
            f"\nINTERRUPTED: {judged} of {len(chosen)} laws judged ({verdict}the rest "
            f"not reached, shown '-' above; {total:.1f} s)"
        )
        return 1 if broken else 2
    if harness is not None:
        print(f"\nHARNESS ERROR: the histories failed outside every law:\n{harness}")
        print(f"\nHARNESS ERROR ({total:.1f} s)")
        return 2
    if broken or changed:
        print(
            f"\n{len(broken)} of {len(chosen)} laws BROKEN, "
            + (f"{len(unsure)} INCONCLUSIVE, " if unsure else "")
            + f"{len(changed)} lock problems ({total:.1f} s)"
        )
        return 1
    idle = [r for r in results.values() if isinstance(r, NotApplicable)]
    held = len(chosen) - len(idle) - len(unsure)
    under = f", {len(idle)} NOT APPLICABLE" if idle else ""
    if unsure:
        under += (
            f", {len(unsure)} INCONCLUSIVE ({', '.join(r.law for r in unsure)}: a prover ran "
            "out of its budget; no counterexample, not counted as holding)"
        )
    if engine is not None:
        differ = deviations(engine)
        under += f" (engine profile: {'; '.join(differ) if differ else 'SPEC'})"
    if len(chosen) == len(laws):
        word = "ALL " if not idle and not unsure else ""
        print(f"{word}{held} LAWS HOLD{under} ({total:.1f} s, profile {profile.name})")
    else:
        print(f"{held} OF {len(laws)} LAWS HOLD{under}, THE REST NOT RUN ({total:.1f} s)")
    return 0


Task = int | tuple[str, ...]
"""What a worker is handed: a step shard's number, or check laws' names."""

Done = tuple[int | str, Verdicts | tuple[Result, float]]
"""A shard's number and its verdicts, or a check law's name, its verdict and seconds."""

LONGEST = (
    "push_agrees_always",
    "bits_agree",
    "push_agrees",
    "profile_read_back",
    "line_calls_at_most_tries",
    "first_merges_0_7",
    "constants_allowed",
    "last_merges_8_9",
)
"""The check laws that take longest under the deep profile, longest first
(wall seconds in the nightly of 2026-12-02, BENCHMARKS.md "Row 9 after the
deep work": 250, 173, 135, 126, 118, 51, 40, 38); every other takes seconds."""


TOGETHER = ("line",)
"""The areas whose check laws share what they draw (laws/line/cases.py
`drawn`, once per process): one task, or each worker would draw it again."""


def plan(checks: list[Law], shards: int) -> list[Task]:
    """The order the workers take their tasks in: the step laws' shards first
    (each the longest task of a run), then the check laws longest first, so
    that what is left at the end is short and every worker is busy to it;
    the check laws of an area in TOGETHER are one task, in table order."""
    groups: dict[str, list[str]] = {}
    for law in checks:
        groups.setdefault(law.area if law.area in TOGETHER else law.name, []).append(law.name)
    rank = {name: k for k, name in enumerate(LONGEST)}

    def first(names: list[str]) -> int:
        return min(rank.get(name, len(rank)) for name in names)

    return [*range(shards), *(tuple(names) for names in sorted(groups.values(), key=first))]


def shard_profiles(steps: list[Law], profile: Profile, jobs: int) -> list[Profile]:
    """The step laws' histories as shards, one per worker when exploring,
    shard k exploring its share from seed + k; one shard for a derandomized
    run, which would draw the same cases in every shard; none without step
    laws."""
    if not steps:
        return []
    if jobs <= 1 or profile.seed is None:
        return [profile]
    share = -(-profile.histories // jobs)
    return [replace(profile, histories=share, seed=profile.seed + k) for k in range(jobs)]


def work(
    tasks: Queue[Task | None],
    out: Queue[Done],
    steps: list[str],
    shards: list[Profile],
    profile: Profile,
    folder: Path,
    engine: EngineProfile | None,
) -> None:
    """Take tasks until none is left (in a worker process): step shard k's
    histories, under `shards[k]`, or check laws, one after another, under
    `profile`. Ctrl-C and a hangup are the parent's to handle, which ends
    its workers with SIGTERM; each worker leads a process group of its own,
    which the parent then ends too, so that what a worker started (CrossHair's
    `crosshair check`) ends with it (`end_group`)."""
    os.setpgid(0, 0)
    for each in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(each, signal.SIG_IGN)
    while (task := tasks.get()) is not None:
        if isinstance(task, tuple):
            for name in task:
                out.put((name, check_law(name, profile)))
        else:
            laws = [law for law in all_laws() if law.name in steps]
            out.put((task, check_step_laws(laws, shards[task], folder, progress, engine)))


def end_group(leader: int | None) -> None:
    """End what is left of the process group a worker led (`work`): the
    processes it started, which outlive it otherwise."""
    if leader is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, signal.SIGKILL)


def next_done(out: Queue[Done], workers: list[Process]) -> Done:
    """The next task a worker finished; RuntimeError (a HARNESS ERROR) when a
    worker ended without finishing its task (killed, crashed), instead of
    waiting for it forever."""
    while True:
        try:
            return out.get(timeout=1.0)
        except queue.Empty:
            dead = [w for w in workers if w.exitcode not in (None, 0)]
            if not dead and any(w.is_alive() for w in workers):
                continue
        try:  # what it put just before it ended
            return out.get(timeout=1.0)
        except queue.Empty:
            code = dead[0].exitcode if dead else 0
            raise RuntimeError(
                f"a worker process ended (exit {code}) before the laws were all judged"
            ) from None


ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""The signals that end a run as Ctrl-C does: the workers ended, the laws
judged so far printed (SIGTERM from CI or `kill`, SIGHUP from a closed
terminal, SIGQUIT)."""


def interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def run(
    chosen: list[Law],
    profile: Profile,
    engine: EngineProfile | None,
    folder: Path,
    jobs: int = 1,
) -> tuple[dict[str, Result], dict[str, float], str, str | None, bool]:
    """Check the chosen laws over `jobs` worker processes (one per core by
    default, so none starves another): the step laws' histories in shards
    and the check laws (proofs, loops), handed out as `plan` orders them.
    With `first_break`, stop at the first broken law. The last value says
    whether Ctrl-C or one of ENDING cut the run short: then only the laws
    judged whole are in the results (the step laws only when every shard
    of their histories was done)."""
    results: dict[str, Result] = {}
    seconds: dict[str, float] = {}
    steps = [law for law in chosen if law.kind == "step"]
    checks = [law for law in chosen if law.kind == "check"]
    shards = shard_profiles(steps, profile, jobs)
    tasks = plan(checks, len(shards))
    summary = ""
    harness = None
    todo: Queue[Task | None] = Queue()
    out: Queue[Done] = Queue()
    workers = [
        Process(
            target=work,
            args=(todo, out, [law.name for law in steps], shards, profile, folder, engine),
        )
        for _ in range(max(1, min(jobs, len(tasks))))
    ]
    for task in [*tasks, *[None] * len(workers)]:
        todo.put(task)
    began = time.perf_counter()
    for worker in workers:
        worker.start()
    found: list[Verdicts] = []
    interrupted = False
    before = {each: signal.signal(each, interrupt) for each in (signal.SIGINT, *ENDING)}
    try:
        for _ in range(len(shards) + len(checks)):
            task, verdict = next_done(out, workers)
            progress(f"done at {time.perf_counter() - began:.0f} s: {describe(task, shards)}")
            if isinstance(verdict, Verdicts):
                found.append(verdict)
                broke = any(isinstance(r, Broken) for r in verdict.results.values())
            else:
                results[str(task)], seconds[str(task)] = verdict
                broke = isinstance(verdict[0], Broken)
            if profile.first_break and broke:
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        for each in before:  # a second signal would cut the ending short
            signal.signal(each, signal.SIG_IGN)
        for worker in workers:
            worker.terminate()
            worker.join()
            end_group(worker.pid)
        for each, handler in before.items():
            signal.signal(each, handler)
    if found and not (interrupted and len(found) < len(shards)):
        verdicts = found[0] if len(shards) == 1 else merged(found, steps, combined(shards), engine)
        results.update(verdicts.results)
        seconds.update(verdicts.tally.seconds)
        harness = verdicts.harness
        tally = verdicts.tally
        shared = tally.searching - sum(tally.seconds.values())
        summary = (
            f"(step laws share {tally.histories} generated histories, {tally.events} "
            f"events of which {tally.refused} refused, {shared:.1f} s outside the laws' "
            "own checks, summed over the processes that drew them)"
        )
    for law in chosen:
        off = law.off(engine) if engine is not None else None
        if off is not None:
            results[law.name] = NotApplicable(f"not applicable under {off}")
    return results, seconds, summary, harness, interrupted


def combined(shards: list[Profile]) -> Profile:
    """The run the shards make together: all their histories."""
    return replace(shards[0], histories=sum(shard.histories for shard in shards))


def describe(task: int | str, shards: list[Profile]) -> str:
    if isinstance(task, str):
        return task
    return f"histories of shard {task + 1} of {len(shards)} ({shards[task].histories} asked for)"


def print_table(chosen: list[Law], results: dict[str, Result], seconds: dict[str, float]) -> None:
    width = max(len(law.name) for law in chosen)
    print(f"{'law':<{width}}  {'result':<12}  {'seconds':>7}  strength")
    for law in chosen:
        result = results.get(law.name)
        if isinstance(result, Held):
            verdict, strength = "holds", result.strength
        elif isinstance(result, NotApplicable):
            verdict, strength = "n/a", result.why
        elif isinstance(result, Broken):
            verdict, strength = "BROKEN", "see below"
        elif isinstance(result, Inconclusive):
            verdict, strength = "INCONCLUSIVE", "a prover ran out of its budget: see below"
        else:
            verdict, strength = "-", "not reached (the run ended first)"
        print(f"{law.name:<{width}}  {verdict:<12}  {seconds.get(law.name, 0):7.2f}  {strength}")


if __name__ == "__main__":
    sys.exit(main())
