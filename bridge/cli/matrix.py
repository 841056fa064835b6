"""`matrix REPORT ... -o PAGE`: the JSON reports of several engines' corpus
runs side by side, as one HTML page and, with `--json`, one JSON document
(bridge/outputs/matrix.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge.cli.options import Commands
from bridge.outputs.matrix import write_matrix
from bridge.outputs.writing import apart, check_file


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "matrix", help="several engines' corpus reports side by side, as one page"
    )
    command.add_argument(
        "reports",
        type=Path,
        nargs="+",
        metavar="REPORT",
        help="a JSON report of `corpus --json` (a divergence page is linked when its run wrote "
        "it beside the report: corpus --report DIR --json DIR/report.json)",
    )
    command.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("matrix.html"),
        metavar="PAGE",
        help="the page (default: %(default)s)",
    )
    command.add_argument(
        "--json", type=Path, metavar="PATH", help="the same as JSON (default: none)"
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """0 when written (whatever the outcomes in it), 2 for a report that is
    not one, or a page or JSON that would be written over a report read, or
    over each other."""
    outputs = [("-o", args.output)] + ([("--json", args.json)] if args.json is not None else [])
    apart(outputs, args.reports)
    check_file(args.output, "-o")
    if args.json is not None:
        check_file(args.json, "--json")
    found = write_matrix(args.reports, args.output, args.json)
    print(
        f"wrote {args.output}: {len(found['engines'])} engines, "
        f"{len(found['scenarios'])} scenarios"
        + (f"; and {args.json}" if args.json is not None else "")
    )
    return 0
