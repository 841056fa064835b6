"""`python -m bench.diagnose [--quick] [--engine NAME]`: what
`diagnose` from nothing costs beside corpus runs of the same engine
(issues 21 and 34). Every run takes the same scenarios and `--jobs 2`:

- `corpus` of the engine as it is, declaring nothing: each scenario stops
  at its first divergence;
- `corpus` of the engine declaring its real profile and capabilities: every
  answer compared, the run `diagnose` leads to;
- `diagnose` of the engine declaring nothing.

The engines (tests/bridge/engines/): `distant` (the default) differs from
SPEC in eight ways: seven options, `kind_words` among them, and a timed-out
render answered with the plain render; its profile has no transcripts kept,
so the model answers for it, as for a real engine's. `partial` has four
differences and a kept profile (its transcripts stand in for the model).
`self_starting` and `zoom_shaped` are shaped like the real JavaScript and
Rust engines of issue 40 (seven and five options, and the Rust-like one's
plain timed-out render).

Prints one JSON object: each run's wall seconds and the CPU seconds of the
run and all its processes, diagnose's ratio to each corpus run, whether
what diagnose proposed is the engine's real profile and capabilities, and
its count of likely bugs (0)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "tests" / "bridge" / "engines"
QUICK = ("random_0*", "chooser_*", "both_*", "empty_chat")
"""The scenarios of a `--quick` run (else the whole corpus)."""


SHAPED = ("self_starting", "zoom_shaped")
"""The engines shaped like the real ones of issue 40."""
ALL = ["compaction_view", "queue_waiting", "replies", "settle_timeout", "timed_out_render", "zoom"]


def real(engine: str) -> dict[str, Any]:
    """The engine's real profile (only what differs from SPEC) and capabilities."""
    sys.path.insert(0, str(ENGINES))
    if engine in ("distant", *SHAPED):
        module = __import__(engine)
        held = getattr(module, "CAPABILITIES", ALL)
        return {"profile": module.PROFILE, "capabilities": sorted(held)}
    profile = json.loads((ROOT / "scenarios" / "profiles" / "partial.json").read_text("utf-8"))
    capabilities = ["compaction_view", "queue_waiting", "replies", "settle_timeout"]
    return {"profile": profile, "capabilities": capabilities}


def timed(args: list[str]) -> dict[str, float]:
    """One bridge command run to its end: wall and CPU seconds (children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bridge", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"wall": round(wall, 2), "cpu": round(cpu, 2)}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.diagnose", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a part of the corpus")
    parser.add_argument("--engine", choices=("distant", "partial", *SHAPED), default="distant")
    args = parser.parse_args(argv)
    only = [a for glob in QUICK for a in ("--only", glob)] if args.quick else []
    script = f"{sys.executable} {ENGINES / (args.engine + '.py')}"
    engine = ["--engine", script, "--jobs", "2", *only]
    declared = ["--engine", f"{script} --declare", *engine[2:]]
    with tempfile.TemporaryDirectory(prefix="optchat-diagnose-") as where:
        corpus = timed(["corpus", *engine])
        corpus_declared = timed(["corpus", *declared])
        report = Path(where) / "diagnose.json"
        diagnose = timed(["diagnose", *engine, "--regressions", where, "--json", str(report)])
        said = json.loads(report.read_text(encoding="utf-8"))
    ratios = {
        f"{name}_{kind}": round(diagnose[kind] / run[kind], 2)
        for name, run in (("ratio", corpus), ("ratio_declared", corpus_declared))
        for kind in ("wall", "cpu")
    }
    found = {"corpus": corpus, "corpus_declared": corpus_declared, "diagnose": diagnose}
    outcome = {
        "engine": args.engine,
        "scenarios": len(said["scenarios"]),
        "proposed": said["proposed"],
        "real": said["proposed"] == real(args.engine),
        "likely_bugs": len(said["likely_bugs"]),
    }
    print(json.dumps({**found, **ratios, **outcome}))


if __name__ == "__main__":
    main(sys.argv[1:])
