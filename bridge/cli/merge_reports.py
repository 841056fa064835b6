"""`merge-reports OUT IN ...`: the reports of a campaign's shards joined into
one (bridge/outputs/merge.py): JSON reports into a JSON report, JUnit XML
reports into one test suite."""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge.cli.options import Commands
from bridge.outputs.merge import merge_files
from bridge.outputs.writing import apart, check_file


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "merge-reports", help="the JSON or JUnit reports of corpus --shard K/N joined into one"
    )
    command.add_argument("out", type=Path, metavar="OUT", help="the joined report")
    command.add_argument("inputs", type=Path, nargs="+", metavar="IN", help="a shard's report")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The joined run's verdict, as one run's exit code (bridge/runs/tally.py:
    its scenarios' outcomes, and its summed coverage held to the shards'
    `--min-compared`), 2 for a report that cannot be joined, or an OUT that
    is one of them (it would be written over)."""
    apart([("OUT", args.out)], args.inputs)
    check_file(args.out, "OUT")
    counts, code, summary = merge_files(args.out, args.inputs)
    said = ", ".join(f"{n} {name}" for name, n in counts.items())
    print(f"joined {len(args.inputs)} reports into {args.out}: {said}")
    print(summary)
    return code
