"""`python -m bench.fuzz`: how fast `python -m bridge fuzz` finds each engine
break of laws/mutants.py and the two example breaks of issue 24, how small
it shrinks each (its default budget: counted replays, so the sizes do not
depend on the machine's load), and its throughput.

Each break whose gate is the bridge is planted in a scratch copy of the
project (laws.mutants.scratch_copy, apply), and `bridge fuzz` runs there
against `python -m impl.protocol` as plain Python (OPTCHAT_PURE=1, so the
planted source is the one run); the example breaks are engines of their own
(tests/bridge/engines/ties_newest.py, shrinking_dropped.py). The scenario it
writes is replayed with `bridge compare`, which must exit 1 with the same
divergence. Throughput is measured on the unbroken project, against the
protocol engine and against `impl` in this process. Prints Markdown tables
(BENCHMARKS.md, "fuzz"; MUTATION.md) and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from laws.mutants import BREAKS, ROOT, Break, apply, scratch_copy

PROTOCOL_ENGINE = f"{sys.executable} -m impl.protocol"

EXAMPLES = {
    "ties broken toward the newest pair (`ties_newest.py`)": "ties_newest.py",
    "the shrinking flag not carried to the next message (`shrinking_dropped.py`)": (
        "shrinking_dropped.py"
    ),
}
"""Issue 24's two example breaks: engines in tests/bridge/engines/."""


@dataclass
class Outcome:
    """What one `bridge fuzz` run printed."""

    code: int
    output: str
    seconds: float

    def number(self, pattern: str) -> str:
        found = re.search(pattern, self.output, flags=re.M)
        return found.group(1) if found else "?"


def fuzz(
    where: Path, engine: str, seconds: float, seed: int, pure: bool, out: Path | None = None
) -> Outcome:
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONHASHSEED="0")
    if pure:
        env["OPTCHAT_PURE"] = "1"
    command = [sys.executable, "-m", "bridge", "fuzz", "--engine", engine]
    command += ["--seconds", f"{seconds:g}", "--seed", str(seed)]
    command += ["--regressions", str((out or where) / "fuzz-regressions")]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    return Outcome(done.returncode, done.stdout + done.stderr, time.perf_counter() - began)


HEAD = re.compile(r"^DIVERGENCE in .*\n  field .*$", flags=re.M)
"""A divergence report's first two lines: where, and which field."""


def head(output: str) -> str | None:
    found = HEAD.search(output)
    return found.group(0) if found else None


def replays(where: Path, outcome: Outcome, engine: str = PROTOCOL_ENGINE) -> str:
    """Whether `bridge compare` on the written scenario exits 1 at the same
    divergence (its report's first lines equal fuzz's)."""
    path = outcome.number(r"^shrunk to \d+ of \d+ events \(\d+ tries\), .*: (\S+)$")
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONHASHSEED="0", OPTCHAT_PURE="1")
    command = [sys.executable, "-m", "bridge", "compare", path, "--engine", engine]
    with tempfile.TemporaryDirectory(prefix="optchat-compare-") as regressions:
        command += ["--regressions", regressions, "--shrink-seconds", "1"]
        done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    said = head(done.stdout)
    if done.returncode == 1 and said is not None and said == head(outcome.output):
        return "yes"
    return f"no (exit {done.returncode})"


def one_break(mutation: Break, seconds: float, seed: int) -> tuple[str, int | None]:
    """The break's table row, and the events it shrank to (None: not found)."""
    with tempfile.TemporaryDirectory(prefix="optchat-fuzz-") as scratch:
        copy = scratch_copy(Path(scratch))
        apply(copy, mutation)
        return row(mutation.name, copy, PROTOCOL_ENGINE, seconds, seed)


def example(name: str, engine: str, seconds: float, seed: int) -> tuple[str, int | None]:
    """An example break's row, its engine run from the project itself."""
    with tempfile.TemporaryDirectory(prefix="optchat-fuzz-") as scratch:
        command = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / engine}"
        return row(name, ROOT, command, seconds, seed, Path(scratch))


def row(
    name: str, where: Path, engine: str, seconds: float, seed: int, out: Path | None = None
) -> tuple[str, int | None]:
    outcome = fuzz(where, engine, seconds, seed, pure=True, out=out)
    if outcome.code != 1:
        ran = outcome.number(r"^no divergence in (\d+ histories, \d+ events)")
        missed = f"not found in {seconds:g} s ({ran}; exit {outcome.code})"
        return f"| {name} | {missed} | | | | |", None
    found = outcome.number(r"^DIVERGED after ([\d.]+) s")
    histories = outcome.number(r"^DIVERGED after [\d.]+ s, at history (\d+)")
    size = outcome.number(r"^shrunk to (\d+) of")
    before = outcome.number(r"^shrunk to \d+ of (\d+) events")
    tries = outcome.number(r"^shrunk to \d+ of \d+ events \((\d+) tries\)")
    hypothesis = outcome.number(r"^Hypothesis shrank it to (\d+) events")
    field = outcome.number(r"^  field '(\w+)'")
    same = replays(where, outcome, engine)
    shown = (
        f"| {name} | {found} s (history {histories}) | **{size} events** (from {before}; "
        f"Hypothesis: {hypothesis}), field `{field}` | {tries} | {outcome.seconds:.0f} s | {same} |"
    )
    return shown, int(size) if size.isdigit() else None


BEFORE = "78dbcb9"
"""main before issue 24's fuzz rework: Hypothesis drew every choice of an
event, and the model stepped through each history twice."""

RATE = ["--engine", "impl", "--seed", "1", "--histories", "300"]
"""The run whose events per second are compared: the same 300 histories."""


def rate(where: Path) -> float | None:
    """Events per second of RATE's run in the project at `where`, the engine
    (plain Python, as no scratch copy has the C build) in process."""
    env = dict(os.environ, PYTHONPATH=str(where), PYTHONHASHSEED="0", OPTCHAT_PURE="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both sides import compiled modules after a first run
    with tempfile.TemporaryDirectory(prefix="optchat-fuzz-") as regressions:
        command = [sys.executable, "-m", "bridge", "fuzz", *RATE, "--regressions", regressions]
        done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    found = re.search(r"^throughput: .* (\d+) events/s", done.stdout, flags=re.M)
    return float(found.group(1)) if found and done.returncode == 0 else None


def rates(rounds: int = 3) -> dict[str, object]:
    """RATE's events per second now and at BEFORE (a scratch copy from git),
    run in turn `rounds` times; the median of each, and now over before."""
    with tempfile.TemporaryDirectory(prefix="optchat-before-") as scratch:
        archived = subprocess.run(
            ["git", "-C", str(ROOT), "archive", BEFORE], capture_output=True, check=False
        )
        if archived.returncode != 0:
            return {"before": None, "after": rate(ROOT), "ratio": None, "commit": BEFORE}
        with tarfile.open(fileobj=io.BytesIO(archived.stdout)) as tar:
            tar.extractall(scratch, filter="data")
        runs = [(rate(Path(scratch)), rate(ROOT)) for _ in range(rounds)]
    before = [b for b, _ in runs if b is not None]
    after = [a for _, a in runs if a is not None]
    middle = (
        statistics.median(before) if before else None,
        statistics.median(after) if after else None,
    )
    ratio = middle[1] / middle[0] if None not in middle else None
    return {"before": middle[0], "after": middle[1], "ratio": ratio, "commit": BEFORE, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="the search's time per break")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--throughput-seconds", type=float, default=30.0, help="0: no throughput table"
    )
    parser.add_argument("--only", nargs="*", help="names (substrings) of breaks")
    parser.add_argument(
        "--rate",
        action="store_true",
        help=f"only events per second now against commit {BEFORE}, as one JSON line",
    )
    args = parser.parse_args(argv)
    if args.rate:
        print(json.dumps(rates()))
        return 0
    print(f"seed {args.seed}, {args.seconds:g} s per break")
    print(
        "| engine break | found after | shrunk to | shrinking's tries "
        "| whole run (with shrinking) | compare replays it |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    sizes: dict[str, int | None] = {}
    for mutation in BREAKS:
        if mutation.gate != "bridge":
            continue
        if args.only is not None and not any(name in mutation.name for name in args.only):
            continue
        shown, sizes[mutation.name] = one_break(mutation, args.seconds, args.seed)
        print(shown, flush=True)
    for name, engine in EXAMPLES.items():
        if args.only is not None and not any(part in name for part in args.only):
            continue
        shown, sizes[name] = example(name, engine, args.seconds, args.seed)
        print(shown, flush=True)
    if args.throughput_seconds > 0:
        throughput(args.throughput_seconds, args.seed)
    found = [size for size in sizes.values() if size is not None]
    print(json.dumps({"sizes": sizes, "largest": max(found) if len(found) == len(sizes) else None}))
    return 0


def throughput(seconds: float, seed: int) -> None:
    print()
    print("| engine | histories | events | events/s |")
    print("| --- | --- | --- | --- |")
    for engine, pure in ((PROTOCOL_ENGINE, True), ("impl", False)):
        outcome = fuzz(ROOT, engine, seconds, seed, pure)
        pattern = r"^throughput: (\d+) histories, (\d+) events in [\d.]+ s: (\d+) events/s"
        found = re.search(pattern, outcome.output, flags=re.M)
        shown = " | ".join(found.groups()) if found else f"failed (exit {outcome.code})"
        name = "python -m impl.protocol (plain Python)" if pure else "impl (in process)"
        print(f"| {name} | {shown} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
