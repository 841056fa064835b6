"""`python -m bench.fuzz`: how fast `python -m bridge fuzz` finds each engine
break of laws/mutants.py, how small it shrinks it, and its throughput.

Each break whose gate is the bridge is planted in a scratch copy of the
project (laws.mutants.scratch_copy, apply), and `bridge fuzz` runs there
against `python -m impl.protocol` as plain Python (OPTCHAT_PURE=1, so the
planted source is the one run). The scenario it writes is replayed with
`bridge compare`, which must exit 1 with the same divergence. Throughput is
measured on the unbroken project, against the protocol engine and against
`impl` in this process. Prints one Markdown table (BENCHMARKS.md, "fuzz").
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from laws.mutants import BREAKS, ROOT, Break, apply, scratch_copy

PROTOCOL_ENGINE = f"{sys.executable} -m impl.protocol"


@dataclass
class Outcome:
    """What one `bridge fuzz` run printed."""

    code: int
    output: str
    seconds: float

    def number(self, pattern: str) -> str:
        found = re.search(pattern, self.output, flags=re.M)
        return found.group(1) if found else "?"


def fuzz(where: Path, engine: str, seconds: float, seed: int, pure: bool) -> Outcome:
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONHASHSEED="0")
    if pure:
        env["OPTCHAT_PURE"] = "1"
    command = [sys.executable, "-m", "bridge", "fuzz", "--engine", engine]
    command += ["--seconds", f"{seconds:g}", "--seed", str(seed)]
    command += ["--regressions", str(where / "fuzz-regressions")]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    return Outcome(done.returncode, done.stdout + done.stderr, time.perf_counter() - began)


HEAD = re.compile(r"^DIVERGENCE in .*\n  field .*$", flags=re.M)
"""A divergence report's first two lines: where, and which field."""


def head(output: str) -> str | None:
    found = HEAD.search(output)
    return found.group(0) if found else None


def replays(where: Path, outcome: Outcome) -> str:
    """Whether `bridge compare` on the written scenario exits 1 at the same
    divergence (its report's first lines equal fuzz's)."""
    path = outcome.number(r"^shrunk to \d+ of \d+ events \(\d+ tries\), .*: (\S+)$")
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONHASHSEED="0", OPTCHAT_PURE="1")
    command = [sys.executable, "-m", "bridge", "compare", path, "--engine", PROTOCOL_ENGINE]
    command += ["--regressions", str(where / "compare-regressions"), "--shrink-seconds", "1"]
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    said = head(done.stdout)
    if done.returncode == 1 and said is not None and said == head(outcome.output):
        return "yes"
    return f"no (exit {done.returncode})"


def one_break(mutation: Break, seconds: float, seed: int) -> str:
    with tempfile.TemporaryDirectory(prefix="optchat-fuzz-") as scratch:
        copy = scratch_copy(Path(scratch))
        apply(copy, mutation)
        outcome = fuzz(copy, PROTOCOL_ENGINE, seconds, seed, pure=True)
        if outcome.code != 1:
            ran = outcome.number(r"^no divergence in (\d+ histories, \d+ events)")
            missed = f"not found in {seconds:g} s ({ran}; exit {outcome.code})"
            return f"| {mutation.name} | {missed} | | | |"
        found = outcome.number(r"^DIVERGED after ([\d.]+) s")
        histories = outcome.number(r"^DIVERGED after [\d.]+ s, at history (\d+)")
        size = outcome.number(r"^shrunk to (\d+) of")
        before = outcome.number(r"^shrunk to \d+ of (\d+) events")
        field = outcome.number(r"^  field '(\w+)'")
        same = replays(copy, outcome)
    return (
        f"| {mutation.name} | {found} s (history {histories}) | {size} events "
        f"(from {before}), field `{field}` | {outcome.seconds:.0f} s | {same} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="the search's time per break")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--throughput-seconds", type=float, default=30.0)
    parser.add_argument("--only", nargs="*", help="names (substrings) of breaks")
    args = parser.parse_args(argv)
    print(f"seed {args.seed}, {args.seconds:g} s per break")
    print(
        "| engine break (laws/mutants.py) | found after | shrunk to "
        "| whole run (with shrinking) | compare replays it |"
    )
    print("| --- | --- | --- | --- | --- |")
    for mutation in BREAKS:
        if mutation.gate != "bridge":
            continue
        if args.only and not any(name in mutation.name for name in args.only):
            continue
        print(one_break(mutation, args.seconds, args.seed), flush=True)
    print()
    print("| engine | histories | events | events/s |")
    print("| --- | --- | --- | --- |")
    for engine, pure in ((PROTOCOL_ENGINE, True), ("impl", False)):
        outcome = fuzz(ROOT, engine, args.throughput_seconds, args.seed, pure)
        pattern = r"^throughput: (\d+) histories, (\d+) events in [\d.]+ s: (\d+) events/s"
        found = re.search(pattern, outcome.output, flags=re.M)
        shown = " | ".join(found.groups()) if found else f"failed (exit {outcome.code})"
        name = "python -m impl.protocol (plain Python)" if pure else "impl (in process)"
        print(f"| {name} | {shown} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
