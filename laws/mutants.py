"""`python -m laws.mutants`: the deliberate breaks of SPEC 9, each applied in a
scratch copy of the project (never in the working tree), then its gate run
there: the laws for a model break, the bridge on the committed corpus for an
engine break. A break its gate does not catch is MISSED and fails the run.
The copy holds the sources only, not the engine's C build (build/ is not
part of the project), so an engine break runs as plain Python there."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Break:
    """A deliberate break: in `path`, each `old` (which must occur exactly once)
    becomes its `new`."""

    name: str
    path: str
    edits: tuple[tuple[str, str], ...]
    gate: str  # "laws" (a model break) or "bridge" (an engine break)


BREAKS = [
    Break(
        "due measured from the first message",
        "model/due.py",
        (
            ("return nodes.end(nodes.sibling(pair))", "return nodes.first(pair)"),
            ("count_plus_one = bits.increment(count)", "count_plus_one = count"),
        ),
        "laws",
    ),
    Break(
        "due without the shift (T for T + 1)",
        "model/due.py",
        (("count_plus_one = bits.increment(count)", "count_plus_one = count"),),
        "laws",
    ),
    Break(
        "pair levels swapped in the cross comparison",
        "model/due.py",
        (
            (
                "bits.shift(count_plus_one, b.level), bits.shift(pair_end(b), a.level)",
                "bits.shift(count_plus_one, a.level), bits.shift(pair_end(b), b.level)",
            ),
        ),
        "laws",
    ),
    Break(
        "budget of push's length + 1 in push_agrees",
        "model/push.py",
        (("len(stack), order", "len(stack) + 1, order"),),
        "laws",
    ),
    Break(
        "merging into an unbuilt parent",
        "model/view.py",
        (("return is_pair(view, k) and built(nodes.parent(view[k]))", "return is_pair(view, k)"),),
        "laws",
    ),
    Break(
        "due measured from the first message, in the engine",
        "impl/view.py",
        (
            (
                "due = (self.count + 1 - first_message) << (top - level)",
                "due = (self.count - first_message) << (top - level)",
            ),
        ),
        "bridge",
    ),
    Break(
        "the engine's batch merging to CEILING instead of FLOOR",
        "impl/planner.py",
        (
            (
                "self.chat.receive(self.constants.ceiling, self.constants.floor)",
                "self.chat.receive(self.constants.ceiling, self.constants.ceiling)",
            ),
        ),
        "bridge",
    ),
    Break(
        "ties broken toward the newest pair",
        "model/view.py",
        (("order(count, view[k], view[best])", "not order(count, view[best], view[k])"),),
        "laws",
    ),
]


def scratch_copy(into: Path) -> Path:
    """The project's files (tracked or new, not ignored) copied under `into`."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    copy = into / "project"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def apply(copy: Path, mutation: Break) -> None:
    path = copy / mutation.path
    text = path.read_text(encoding="utf-8")
    for old, new in mutation.edits:
        if text.count(old) != 1:
            raise SystemExit(
                f"mutants: {mutation.path} no longer holds {old!r} once; "
                f"update the break {mutation.name!r} in laws/mutants.py"
            )
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def run_gate(copy: Path, mutation: Break, profile: str) -> tuple[list[str], str]:
    """Run the break's gate in the copy: the laws for a model break (the names
    of the broken laws), the bridge on the corpus for an engine break (the
    scenarios that diverge)."""
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONHASHSEED="0")
    if mutation.gate == "laws":
        command = ["-m", "laws", "--profile", profile]
        pattern = r"^LAW BROKEN: (\w+)$"
    else:
        command = ["-m", "bridge", "corpus", "--engine", "impl", "--without-model"]
        pattern = r"^\[\d+/\d+\] FAIL (\S+)"
    done = subprocess.run(
        [sys.executable, *command],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    caught = re.findall(pattern, done.stdout, flags=re.M)
    return caught, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m laws.mutants", description=__doc__)
    parser.add_argument("--profile", default="ci")
    parser.add_argument("--only", nargs="*", default=None, help="names (substrings) of breaks")
    args = parser.parse_args(argv)
    missed = 0
    chosen = [b for b in BREAKS if args.only is None or any(o in b.name for o in args.only)]
    for mutation in chosen:
        began = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="optchat-mutant-") as scratch:
            copy = scratch_copy(Path(scratch))
            apply(copy, mutation)
            broken, output = run_gate(copy, mutation, args.profile)
        seconds = time.perf_counter() - began
        if broken:
            shown = ", ".join(broken[:8]) + (
                f" and {len(broken) - 8} more" if len(broken) > 8 else ""
            )
            print(f"caught  {mutation.name} ({seconds:.0f} s) by {shown}", flush=True)
        else:
            missed += 1
            print(f"MISSED  {mutation.name} ({seconds:.0f} s)\n{output[-2000:]}", flush=True)
    print(f"{len(chosen) - missed} of {len(chosen)} deliberate breaks caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
