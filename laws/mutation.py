"""`python -m laws.mutation`: an automatic mutation run over `model/` with
mutmut, in a scratch copy of the project, reported as a score and the
surviving mutants grouped by function. A report, not a gate: read the
survivors for real gaps (MUTATION.md says what the last run found)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from laws.mutants import scratch_copy

CONFIG = """
[tool.mutmut]
source_paths = ["model/"]
pytest_add_cli_args_test_selection = ["tests/model/"]
also_copy = ["laws/", "scenarios/", "impl/", "bridge/", "tests/", "LAWS.lock"]
# The style test reads the model's names, which mutmut's trampolines change.
pytest_add_cli_args = ["-x", "-q", "-p", "no:cacheprovider",
                       "--ignore=tests/model/test_style.py"]
"""


def mutmut(copy: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", *args], cwd=copy, capture_output=True, text=True
    )
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m laws.mutation", description=__doc__)
    parser.add_argument("--show", type=int, default=40, help="survivors to print in full")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="optchat-mutation-") as scratch:
        copy = scratch_copy(Path(scratch))
        with (copy / "pyproject.toml").open("a", encoding="utf-8") as config:
            config.write(CONFIG)
        mutmut(copy, "run")
        results = mutmut(copy, "results", "--all", "true")
        status = dict(re.findall(r"^\s*(\S+): (\w[\w ]*)$", results, flags=re.M))
        counts = Counter(status.values())
        survivors = sorted(name for name, state in status.items() if state == "survived")
        for name in survivors[: args.show]:
            diff = mutmut(copy, "show", name)
            changed = [line for line in diff.splitlines() if line.startswith(("-  ", "+  "))]
            print(f"{name}\n" + "\n".join(f"    {line}" for line in changed[:4]))
    by_function = Counter(re.sub(r"__mutmut_\d+$", "", name) for name in survivors)
    print("\nsurvivors by function:")
    for function, count in by_function.most_common():
        print(f"  {count:3d}  {function}")
    total = sum(counts.values())
    killed = counts.get("killed", 0)
    print(f"\n{dict(counts)}")
    print(f"MUTATION SCORE {killed}/{total} = {killed / max(total, 1):.1%} killed by tests/model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
