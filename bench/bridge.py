"""The bridge's own cost (BENCHMARKS.md, the speed-of-the-gate rows).

`python -m bench.bridge` prints one JSON object:

- `zero_cost`: the whole corpus checked against a protocol engine that costs
  nothing (tests/bridge/engines/replayer.py answers from the committed
  transcripts), `corpus --jobs 1`: wall seconds, events, and the peak memory
  of the whole process tree (bridge and engine together), sampled;
- `engine_alone` and `checked`: the plain-Python engine (`impl.protocol`, one
  process, sessions) fed the corpus's lines from a file with its answers
  thrown away, against the same engine checked by `corpus --jobs 1`: the
  harness's cost per event beside the engine's own; each the median of
  three runs taken in turn, all of them listed under `rounds`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bridge.formats.layout import files
from bridge.formats.profile import SPEC
from bridge.wire.process import dump
from bridge.wire.stream import exchanges
from scenarios.format import header_line, read

ROOT = Path(__file__).resolve().parent.parent
REPLAYER = ROOT / "tests" / "bridge" / "engines" / "replayer.py"


def tree_bytes(pid: int) -> int:
    """The resident memory of a process and all its descendants now (Linux /proc)."""
    total = 0
    stack = [pid]
    while stack:
        here = stack.pop()
        try:
            pages = int(Path(f"/proc/{here}/statm").read_text().split()[1])
            children = Path(f"/proc/{here}/task/{here}/children").read_text().split()
        except (OSError, IndexError, ValueError):
            continue
        total += pages * os.sysconf("SC_PAGE_SIZE")
        stack.extend(int(child) for child in children)
    return total


def run_sampled(command: list[str], env: dict[str, str], stdin: Path | None = None) -> dict:
    """Run a command to its end; its wall seconds, exit code and the peak
    memory of its process tree, sampled every 20 ms."""
    peak = [0]
    with open(stdin or os.devnull, "rb") as source:
        began = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=source, stdout=subprocess.DEVNULL
        )

        def sample() -> None:
            while process.poll() is None:
                peak[0] = max(peak[0], tree_bytes(process.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        code = process.wait()
        seconds = time.perf_counter() - began
        sampler.join()
    return {"seconds": seconds, "exit": code, "peak_bytes": peak[0]}


def wire_file(into: Path) -> tuple[Path, int]:
    """Every corpus scenario's lines as the bridge sends them under SPEC's
    profile (header, events, the final detail request) in one file; and the
    number of events."""
    path = into / "corpus.wire"
    events = 0
    with path.open("wb") as out:
        for scenario_path in files([]):
            scenario = read(scenario_path)
            out.write(header_line(scenario).encode("utf-8") + b"\n")
            for exchange in exchanges(scenario_path, scenario, SPEC, live=False):
                out.write((exchange.wire or dump(exchange.line)) + b"\n")
            events += len(scenario.events)
    return path, events


ROUNDS = 3
"""Runs of the engine alone and checked, taken in turn; each side's median
counts, since one run of seconds shows a busy moment of a shared machine."""


def median_run(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda run: run["seconds"])[len(runs) // 2]


def measure() -> dict:
    env = {**os.environ, "OPTCHAT_PURE": "1", "PYTHONPATH": str(ROOT)}
    bridge = [sys.executable, "-m", "bridge", "corpus", "--jobs", "1", "--engine"]
    zero = run_sampled([*bridge, f"{sys.executable} {REPLAYER}"], env)
    engine = f"{sys.executable} -m impl.protocol"
    alone, checked = [], []
    with tempfile.TemporaryDirectory(prefix="optchat-bench-") as scratch:
        wire, events = wire_file(Path(scratch))
        for _ in range(ROUNDS):
            alone.append(run_sampled([sys.executable, "-m", "impl.protocol"], env, stdin=wire))
            checked.append(run_sampled([*bridge, engine], env))
    return {
        "events": events,
        "zero_cost": zero,
        "engine_alone": median_run(alone),
        "checked": median_run(checked),
        "rounds": {"engine_alone": alone, "checked": checked},
    }


def main() -> int:
    found = measure()
    print(json.dumps(found))
    every = [("zero_cost", found["zero_cost"])] + [
        (name, run) for name, rounds in found["rounds"].items() for run in rounds
    ]
    failed = sorted({name for name, run in every if run["exit"] != 0})
    if failed:
        print(f"bench.bridge: {', '.join(failed)} did not finish cleanly", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
