"""`python -m laws.mutation`: an automatic mutation run over `model/` with
mutmut, in a scratch copy of the project, reported as a score and the
surviving mutants grouped by function. A report, not a gate: read the
survivors for real gaps (MUTATION.md says what the last run found).

By default `tests/model` kills the mutants (mutmut's own run). With `--laws`
the laws alone do: mutmut makes the mutants, and each mutant of a random
sample runs `python -m laws --first-break` (the gate an engine author runs);
a mutant is killed when a law breaks, and counted apart when the laws run
itself fails (the model crashed outside every law) or runs out of time."""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from laws.mutants import CAUGHT, HARNESS, MISSED, classify, run_process, scratch_copy
from scenarios.arguments import jobs_option, positive

CONFIG = """
[tool.mutmut]
source_paths = ["model/"]
pytest_add_cli_args_test_selection = ["tests/model/"]
also_copy = ["laws/", "scenarios/", "impl/", "bridge/", "tests/", "LAWS.lock"]
# The style test reads the model's names, which mutmut's trampolines change.
pytest_add_cli_args = ["-x", "-q", "-p", "no:cacheprovider",
                       "--ignore=tests/model/test_style.py"]
"""

GENERATE = """
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
from mutmut.utils.file_utils import copy_src_dir, copy_also_copy_files, setup_source_paths
from mutmut.__main__ import create_mutants
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
create_mutants(1)
"""
"""Make the mutants without running a test: the first step of `mutmut run`
(mutmut 3.x, pinned in requirements.lock)."""

VERDICTS = {CAUGHT: "killed", MISSED: "survived", HARNESS: "crashed"}
"""A crash: the laws run failed outside every law (the model raised while
the histories were made) and named no broken law."""


def mutmut(copy: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", *args], cwd=copy, capture_output=True, text=True
    )
    return done.stdout


def changed_lines(copy: Path, name: str) -> list[str]:
    """The lines a mutant changes, as `mutmut show` gives them."""
    diff = mutmut(copy, "show", name)
    return [line for line in diff.splitlines() if line.startswith(("-  ", "+  "))][:4]


def print_survivors(copy: Path, survivors: list[str], show: int) -> None:
    for name in survivors[:show]:
        print(f"{name}\n" + "\n".join(f"    {line}" for line in changed_lines(copy, name)))
    by_function = Counter(re.sub(r"__mutmut_\d+$", "", name) for name in survivors)
    print("\nsurvivors by function:")
    for function, count in by_function.most_common():
        print(f"  {count:3d}  {function}")


def by_tests(copy: Path, show: int) -> int:
    """mutmut's own run, `tests/model` killing the mutants."""
    mutmut(copy, "run")
    results = mutmut(copy, "results", "--all", "true")
    status = dict(re.findall(r"^\s*(\S+): (\w[\w ]*)$", results, flags=re.M))
    counts = Counter(status.values())
    survivors = sorted(name for name, state in status.items() if state == "survived")
    print_survivors(copy, survivors, show)
    total = sum(counts.values())
    killed = counts.get("killed", 0)
    print(f"\n{dict(counts)}")
    print(f"MUTATION SCORE {killed}/{total} = {killed / max(total, 1):.1%} killed by tests/model")
    return 0


def mutant_names(copy: Path) -> list[str]:
    """Every mutant mutmut made, from the index it writes beside each file."""
    names: list[str] = []
    for meta in sorted((copy / "mutants" / "model").glob("*.py.meta")):
        names += json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return names


def by_laws(copy: Path, args: argparse.Namespace) -> int:
    """The laws alone killing a random sample of the mutants."""
    subprocess.run([sys.executable, "-c", GENERATE], cwd=copy, capture_output=True, check=True)
    names = mutant_names(copy)
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    sample = sorted(random.Random(seed).sample(names, min(args.sample, len(names))))
    print(f"{len(sample)} of {len(names)} mutants, drawn with seed {seed}", flush=True)
    command = ["-m", "laws", "--profile", args.profile, "--first-break"]
    began = time.perf_counter()

    def one(name: str) -> tuple[str, str]:
        gate = run_process(command, copy / "mutants", args.timeout, False, MUTANT_UNDER_TEST=name)
        outcome = classify("laws", gate)
        verdict = "timed out" if gate.timed_out else VERDICTS[outcome.verdict]
        if outcome.by:  # a law broken beside a crash elsewhere still kills the mutant
            verdict = "killed"
        print(f"{verdict:<20} {name} {', '.join(outcome.by)}", flush=True)
        return name, verdict

    clean = run_process(command, copy / "mutants", args.timeout, False, MUTANT_UNDER_TEST="")
    if classify("laws", clean).verdict != MISSED:
        print(f"the laws do not hold on the unmutated copy:\n{clean.output[-3000:]}")
        return 2
    with ThreadPoolExecutor(args.jobs) as pool:
        verdicts = dict(pool.map(one, sample))
    counts = Counter(verdicts.values())
    print()
    print_survivors(copy, sorted(n for n, v in verdicts.items() if v == "survived"), args.show)
    killed = counts["killed"]
    print(f"\n{dict(counts)} ({time.perf_counter() - began:.0f} s)")
    print(
        f"LAW-ONLY MUTATION SCORE {killed}/{len(sample)} = {killed / max(len(sample), 1):.1%} "
        f"killed by a named law (profile {args.profile}, seed {seed})"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m laws.mutation", description=__doc__)
    parser.add_argument("--show", type=int, default=40, help="survivors to print in full")
    parser.add_argument("--laws", action="store_true", help="the laws kill the mutants")
    parser.add_argument("--sample", type=int, default=150, help="mutants drawn (with --laws)")
    parser.add_argument("--seed", type=int, help="the sample's seed (with --laws)")
    parser.add_argument("--profile", choices=("ci", "deep"), default="ci")
    jobs_option(parser, "mutants checked", default=2)
    parser.add_argument(
        "--timeout",
        type=positive,
        default=600,
        help="CPU seconds per mutant's laws run, summed over its processes (default 600)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="optchat-mutation-") as scratch:
        copy = scratch_copy(Path(scratch))
        with (copy / "pyproject.toml").open("a", encoding="utf-8") as config:
            config.write(CONFIG)
        return by_laws(copy, args) if args.laws else by_tests(copy, args.show)


if __name__ == "__main__":
    sys.exit(main())
