"""`python -m bench.diagnose [--quick]`: what `diagnose` costs beside one
corpus run of the same engine (issue 21: at most 3x for an engine with
three differences). The engine is the partial example
(tests/bridge/engines/partial.py: four undeclared differences, two
capabilities it lacks and two policies); every run takes the same
scenarios and `--jobs 2`: `corpus` of the engine as it is (declaring
nothing, each scenario stops at its first divergence), `corpus` of the
engine declaring its real profile and capabilities (every answer compared,
with the model: no transcript is kept for that profile), and `diagnose`.
Prints one JSON object: each run's wall seconds and the CPU seconds of the
run and all its processes, diagnose's ratio to each corpus run, and what
diagnose proposed (the engine's real profile and capabilities, when right)
with its count of likely bugs (0)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTIAL = ROOT / "tests" / "bridge" / "engines" / "partial.py"
QUICK = ("random_0*",)
"""The scenarios of a `--quick` run (else the whole corpus)."""


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
    only = [a for glob in QUICK for a in ("--only", glob)] if "--quick" in argv else []
    engine = ["--engine", f"{sys.executable} {PARTIAL}", "--jobs", "2", *only]
    declared = ["--engine", f"{sys.executable} {PARTIAL} --declare", *engine[2:]]
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
    outcome = {"proposed": said["proposed"], "likely_bugs": len(said["likely_bugs"])}
    print(json.dumps({**found, **ratios, **outcome}))


if __name__ == "__main__":
    main(sys.argv[1:])
