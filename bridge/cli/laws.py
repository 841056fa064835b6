"""`laws [...]`: the laws of SPEC 8 (`python -m laws`, the `laws` extra)."""

from __future__ import annotations

from bridge.cli.options import Commands
from bridge.formats.invocation import command
from bridge.formats.usage import UsageError


def add_parser(commands: Commands) -> None:
    commands.add_parser("laws", help="the laws of SPEC 8 (laws --help)", add_help=False)


def run(rest: list[str]) -> int:
    try:
        from laws.__main__ import main as laws_main
    except ImportError as error:
        raise UsageError(
            f"the laws need the `laws` extra ({error.name} is missing): "
            "pip install 'optchat-spec[laws]'"
        ) from None
    return laws_main(rest, prog=f"{command()} laws")
