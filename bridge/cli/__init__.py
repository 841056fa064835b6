"""The bridge's command line (`python -m bridge`, installed as `optchat-spec`).
A FILE is a scenario file or the name of a bundled one (`late_1500`).

  corpus [PATH ...]   an engine on many scenarios (the bundled corpus by default);
                      its FAILs grouped into causes, one scenario of each shrunk
  compare FILE        an engine on one scenario; on a divergence, the report
                      and a shrunk scenario in --regressions
  replay FILE         an engine's answers to one scenario, one JSON line each
  expect [PATH ...]   the model's transcripts of scenarios of your own; in a
                      clone, the bundled corpus's again (the corpus version)
  show FILE           a scenario, and a divergence, as one HTML page (NAME.html)
  fuzz                generated scenarios until the time is spent; a divergence
                      of each cause found, shrunk
  diagnose [PATH ...] which profile explains an engine's divergences; the
                      likely bugs left, shrunk
  merge-reports OUT IN ...
                      the JSON or JUnit reports of shards (--shard K/N) as one
  matrix REPORT ...   several engines' JSON reports side by side: one page
                      (and --json), scenarios by engines, sortable
  laws [...]          the laws of SPEC 8 (needs the `laws` extra)
  files               where SPEC.md, PROTOCOL.md, the schemas and the corpus are

An engine (--engine) is `reference` (impl.protocol, started by this
runner's own Python), `model` or `impl` (in process), or a command speaking
bridge/PROTOCOL.md; every command that runs one needs it named (`show`
draws the scenario alone without one). Exit codes, the same for every
command: 0 agree (or hold), 1 a divergence (or a broken law), 2 bad input,
a usage error or an engine fault.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import NoReturn

from bridge import __version__
from bridge.cli import (
    compare,
    corpus,
    diagnose,
    expect,
    files,
    fuzz,
    laws,
    matrix,
    merge_reports,
    replay,
    show,
)
from bridge.formats.invocation import command
from bridge.formats.profile import ProfileError
from bridge.formats.terminal import escaped_output, standard_streams
from bridge.formats.transcript import TranscriptError
from bridge.formats.usage import UsageError
from bridge.outputs.writing import release
from bridge.runs.ending import ignore_ending, on_ending
from bridge.runs.expect import corpus_version
from bridge.wire.engine import EngineFault
from scenarios.format import ScenarioError

COMMANDS = (
    corpus,
    compare,
    replay,
    expect,
    show,
    fuzz,
    diagnose,
    merge_reports,
    matrix,
    laws,
    files,
)
"""Each command's module, in the order `--help` lists them, here and in the
table above: it adds its arguments (`add_parser`) and runs the command
(`run`)."""


class OneLineParser(argparse.ArgumentParser):
    """A parser whose usage errors are argparse's last line alone, not a
    usage block of 20 lines above it (`--help` prints that)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    top = OneLineParser(
        prog=command(), description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"optchat-spec {__version__} (corpus version {corpus_version()})",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(commands)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` (the process's arguments by default) names;
    its exit code. All it prints goes through bridge/formats/terminal.py."""
    standard_streams()
    with escaped_output():
        return dispatch(sys.argv[1:] if argv is None else argv)


def dispatch(argv: list[str]) -> int:
    if argv[:1] == ["laws"]:
        try:
            return laws.run(argv[1:])
        except UsageError as error:
            print(f"optchat-spec: {error}", file=sys.stderr)
            return 2
    args = parser().parse_args(argv)
    before = on_ending(interrupted)
    try:
        return int(args.run(args))
    except UsageError as error:
        print(f"optchat-spec {args.command}: {error}", file=sys.stderr)
        return 2
    except (ScenarioError, TranscriptError, ProfileError) as error:
        print(f"BAD INPUT: {error}", file=sys.stderr)
        return 2
    except EngineFault as fault:
        print(f"ENGINE FAULT (not a divergence): {fault}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # a terminal hung up takes no more
            print("interrupted", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): what is left unprinted
        # goes nowhere, as Python's documentation of SIGPIPE advises.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2
    finally:
        release()
        for each, handler in before.items():
            signal.signal(each, handler)


def interrupted(_signum: int, _frame: object) -> None:
    """SIGTERM, SIGHUP or SIGQUIT (bridge/runs/ending.py ENDING): the run
    ends as on Ctrl-C, once."""
    ignore_ending()
    raise KeyboardInterrupt
