"""`files`: where SPEC.md, PROTOCOL.md, the schemas and the corpus are."""

from __future__ import annotations

import argparse

from bridge.cli.options import Commands
from bridge.formats.kit import documents


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("files", help="where the kit's documents and data are")
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for what, path in documents().items():
        print(f"{what + ':':<22} {path}")
    return 0
