"""python -m bridge: replay scenarios through the model and engines, compare.

  replay FILE --engine E        print E's transcript (one JSON line per event)
  compare FILE --engine E       model against E at every event; on a divergence
                                print it, shrink it, write scenarios/regressions/
  corpus [--engine E]           the whole corpus: the model against its committed
                                transcripts, E against the model (with
                                --without-model: E against the transcripts)
  expect                        rewrite the committed transcripts from the model

E is `model`, `impl`, or a command that speaks bridge/PROTOCOL.md. Exit codes:
0 agree, 1 divergence, 2 bad scenario or engine fault.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

from bridge.compare import diverge, diverges, shrink
from bridge.corpus import REGRESSIONS, check_all, files, refresh_expected
from bridge.engines import EngineFault, ModelEngine, engine
from bridge.transcript import line, records
from scenarios.format import ScenarioError, read, write


def regression_path(scenario_path: Path, engine_name: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", engine_name).strip("-")[:40] or "engine"
    return REGRESSIONS / f"{scenario_path.stem}-{slug}.jsonl"


def compare(path: Path, spec: str, timeout: float, seconds: float) -> int:
    scenario = read(path)
    found = diverge(scenario, ModelEngine(), engine(spec, timeout))
    if found is None:
        print(f"{path}: model and {spec} agree at all {len(scenario.events)} events")
        return 0
    print(found.report(str(path), ("model", spec)))
    cut = replace(scenario, events=scenario.events[: found.position + 1])
    small = shrink(
        cut, lambda candidate: diverges(candidate, ModelEngine(), engine(spec, timeout)), seconds
    )
    small = replace(
        small,
        generator=f"bridge: shrunk from {path.name} against {spec}",
        notes={"shrunk_from": path.name, "engine": spec, "events_before": len(scenario.events)},
    )
    target = regression_path(path, spec)
    write(small, target)
    print(f"shrunk to {len(small.events)} of {len(scenario.events)} events: {target}")
    again = diverge(small, ModelEngine(), engine(spec, timeout))
    if again is not None:
        print(again.report(str(target), ("model", spec)))
    return 1


def corpus(spec: str, timeout: float, with_model: bool, jobs: int) -> int:
    paths = files()
    failed = 0
    began = time.monotonic()
    for k, verdict in enumerate(check_all(spec, timeout, with_model, jobs), start=1):
        status = "ok  " if verdict.problem is None else "FAIL"
        print(
            f"[{k}/{len(paths)}] {status} {verdict.path.name} ({verdict.seconds:.1f} s, "
            f"{time.monotonic() - began:.0f} s in all)",
            flush=True,
        )
        if verdict.problem is not None:
            failed += 1
            print(f"    {verdict.problem}", flush=True)
    if failed:
        print(f"{failed} of {len(paths)} scenarios FAIL")
        return 1
    against = "model, committed transcripts" if with_model else "committed transcripts"
    print(f"ALL {len(paths)} SCENARIOS AGREE ({against}, {spec})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bridge", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("command", choices=["replay", "compare", "corpus", "expect"])
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--engine", default="impl")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per event")
    parser.add_argument("--shrink-seconds", type=float, default=120.0)
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="scenarios checked at once"
    )
    parser.add_argument(
        "--without-model",
        action="store_true",
        help="corpus: compare the engine with the committed transcripts only",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "replay":
            for record in records(read(args.file), engine(args.engine, args.timeout)):
                print(line(record))
            return 0
        if args.command == "compare":
            return compare(args.file, args.engine, args.timeout, args.shrink_seconds)
        if args.command == "corpus":
            return corpus(args.engine, args.timeout, not args.without_model, args.jobs)
        for name in refresh_expected(args.jobs):
            print(f"changed {name}")
        return 0
    except ScenarioError as error:
        print(f"BAD SCENARIO: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        # Bad constants (floor over ceiling, ...) are refused by the engines.
        where = args.file if args.file else "the corpus"
        print(f"BAD SCENARIO: {where}:1: {error}", file=sys.stderr)
        return 2
    except EngineFault as fault:
        print(f"ENGINE FAULT (not a divergence): {fault}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
