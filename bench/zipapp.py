"""`python -m bench.zipapp [--runs N] [--pyz FILE]`: how long the single-file
runner (optchat-spec.pyz, release/zipapp.py) takes beside the clone's runner
(`python -m bridge`) on one small command, after the zipapp's first run
(issue 37: within 1.5x). The command is nearly all starting: `corpus
--engine reference --only empty_chat --jobs 1`, the runner and the engine
process it starts, on the corpus's smallest scenario.

The zipapp is this tree's, built into a scratch folder (or `--pyz`) and
run by the interpreter the venv was made from, with a HOME of its own: its
first run unpacks it into that HOME's cache, and is not counted. The clone
runs from its root with its modules compiled beforehand, as `make` leaves
them. Both run with PYTHONDONTWRITEBYTECODE=1, as this machine's
environment sets it (a runner that compiles its modules at every start is
what this measures). Each side runs N times (default 7) in turn, A B A B;
wall and CPU seconds (the process and its children) each, and the median
of each side's and of the ratios pair by pair. Prints one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from release import zipapp
from scenarios.arguments import positive_int

ROOT = Path(__file__).resolve().parent.parent
PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
"""The interpreter this venv was made from: no package of the venv in sight."""
COMMAND = ("corpus", "--engine", "reference", "--only", "empty_chat", "--jobs", "1")


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """One run of `argv` to its end: wall and CPU seconds (it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"wall": wall, "cpu": cpu}


def measure(pyz: Path, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="optchat-zipapp-bench-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        plain = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        single = {**plain, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
        clone = {**plain, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
        zipapp_argv = [str(PYTHON), str(pyz), *COMMAND]
        clone_argv = [sys.executable, "-m", "bridge", *COMMAND]
        first = timed(zipapp_argv, Path(scratch), single)
        timed(clone_argv, ROOT, {**clone, "PYTHONDONTWRITEBYTECODE": ""})  # compiled, as make does
        sides: dict[str, list[dict[str, float]]] = {"zipapp": [], "clone": []}
        for _ in range(runs):
            sides["zipapp"].append(timed(zipapp_argv, Path(scratch), single))
            sides["clone"].append(timed(clone_argv, ROOT, clone))
    out: dict[str, object] = {"runs": runs, "first_run_wall": round(first["wall"], 3)}
    for what in ("wall", "cpu"):
        for side, seen in sides.items():
            out[f"{side}_{what}"] = round(statistics.median(s[what] for s in seen), 3)
        pairs = zip(sides["zipapp"], sides["clone"], strict=True)
        out[f"ratio_{what}"] = round(statistics.median(a[what] / b[what] for a, b in pairs), 3)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.zipapp", description=__doc__)
    parser.add_argument(
        "--runs", type=positive_int, default=7, help="runs of each side (default 7)"
    )
    parser.add_argument("--pyz", type=Path, help="this zipapp (default: this tree's, built)")
    args = parser.parse_args(argv)
    if args.pyz is not None:
        print(json.dumps(measure(args.pyz.resolve(), args.runs)))
        return
    with tempfile.TemporaryDirectory(prefix="optchat-zipapp-build-") as folder:
        print(json.dumps(measure(zipapp.build(Path(folder)), args.runs)))


if __name__ == "__main__":
    main()
