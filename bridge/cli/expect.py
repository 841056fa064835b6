"""`expect [PATH ...]`: the model's transcripts of scenarios of your own, or
(in a clone only) the committed transcripts of the bundled corpus again,
with its version."""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge.cli.options import Commands
from bridge.formats.invocation import clone
from bridge.formats.layout import files
from bridge.formats.usage import UsageError
from bridge.runs.expect import bundled, make, refresh, write_all
from scenarios.arguments import jobs_option


def add_parser(commands: Commands) -> None:
    command = commands.add_parser(
        "expect", help="transcripts of your own scenarios (of the corpus: in a clone only)"
    )
    command.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="scenario folders or files (default: the bundled corpus, and its version, "
        "in a clone only)",
    )
    jobs_option(command, "scenarios")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The model's transcripts of the scenarios: the bundled corpus's with its
    version (bridge/runs/expect.py), or those of scenarios of your own, beside
    them in the layout `corpus` reads (corpus version 0: not the bundled one)."""
    paths = files(args.paths)
    if not clone() and any(bundled([path]) for path in paths):
        raise UsageError(
            "the bundled corpus's transcripts are made again only in a clone of the project "
            "(an installed runner's are those it shipped with); name scenarios of your own"
        )
    if bundled(paths):
        current, changed = refresh(paths, args.jobs)
        for name in changed:
            print(f"changed {name}")
        print(f"corpus version {current}")
        return 0
    for name in write_all(make(paths, args.jobs), 0):
        print(f"wrote {name}")
    return 0
