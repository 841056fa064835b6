"""`replay FILE`: an engine's answers to one scenario, one JSON line each."""

from __future__ import annotations

import argparse
import json
import sys

from bridge.cli.options import Commands, engine_options, named_engine
from bridge.formats.layout import named, read_checked
from bridge.formats.usage import read_profile
from bridge.runs.corpus import Options, make_engine
from bridge.wire.engine import profile_of
from bridge.wire.stream import from_model


def add_parser(commands: Commands) -> None:
    command = commands.add_parser("replay", help="an engine's answers to one scenario")
    command.add_argument("file", help="a scenario file, or a bundled scenario's name")
    engine_options(command)
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = named(args.file)
    scenario = read_checked(path)
    options = Options(named_engine(args), args.timeout, read_profile(args.profile))
    subject = make_engine(options)
    try:
        ready = subject.start(scenario)
        if ready.unsupported:
            print(f"SKIPPED {path}: {ready.cannot_take()}", file=sys.stderr)
            return 0
        profile = profile_of(ready.profile, options.profile, subject.name)
        for exchange in from_model(scenario, profile, strict=False):
            subject.send(exchange.line)
            answer = subject.receive()
            where = {"at": exchange.position} if exchange.position is not None else {"detail": True}
            print(json.dumps({**where, **answer}, ensure_ascii=False))
    finally:
        subject.close()
    return 0
