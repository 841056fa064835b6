"""The bridge's command line (`python -m bridge`, installed as `optchat-spec`).

  corpus [PATH ...]   an engine on many scenarios (the bundled corpus by default)
  compare FILE        an engine on one scenario; on a divergence, the report
                      and a shrunk scenario in --regressions
  replay FILE         an engine's answers to one scenario, one JSON line each
  fuzz                generated scenarios until one diverges, shrunk
  expect [PATH ...]   make the committed transcripts again (the corpus version)
  show FILE           a scenario, and a divergence, as one HTML page
  laws [...]          the laws of SPEC 8 (needs the `laws` extra)
  files               where SPEC.md, PROTOCOL.md, the schemas and the corpus are

An engine (--engine) is `model`, `impl`, or a command speaking
bridge/PROTOCOL.md. Exit codes, the same for every command: 0 agree (or
hold), 1 a divergence (or a broken law), 2 bad input, a usage error or an
engine fault.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bridge import __version__, fuzz, kit, report, show
from bridge import corpus as corpora
from bridge import expect as expected
from bridge.compare import add_states, diverges, shrink
from bridge.corpus import Options, expected_path, make_engine, profile_of
from bridge.engines import EngineFault, ModelEngine
from bridge.profile import ProfileError, agreement, parse, to_json
from bridge.stream import from_model
from bridge.transcript import Header, TranscriptError, sha256, write
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError, loads, read
from scenarios.format import write as write_scenario

REGRESSIONS = Path("optchat-regressions")
"""Where `compare` and `fuzz` write shrunk scenarios unless told otherwise:
a folder in the current directory, never inside a corpus."""


class UsageError(Exception):
    """A command-line mistake: said in one line, exit 2."""


def read_profile(path: Path | None) -> Profile | None:
    if path is None:
        return None
    try:
        return parse(loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError) as error:
        raise UsageError(f"--profile {path}: {error}") from None


def slug(command: str) -> str:
    """A file-name part naming an engine: readable, and unique to the whole
    command (a hash of it), so two engines never share a file."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", command).strip("-")[:40] or "engine"
    return f"{words}-{hashlib.sha256(command.encode()).hexdigest()[:8]}"


def write_regression(scenario: Scenario, profile: Profile, folder: Path, name: str) -> Path:
    """Write a scenario and the model's transcript of it, in the layout the
    corpus command reads (`FOLDER/scenarios/NAME.jsonl` beside
    `FOLDER/expected/scenarios/...`): `corpus FOLDER/scenarios` replays them."""
    path = folder / "scenarios" / f"{name}.jsonl"
    write_scenario(scenario, path)
    header = Header(path.name, sha256(path), to_json(profile), 0)
    write(header, expected.records(path, profile), expected_path(path, profile))
    return path


def compare(args: argparse.Namespace) -> int:
    path: Path = args.file
    scenario = read(path)
    options = Options(
        args.engine,
        args.timeout,
        read_profile(args.profile),
        args.live_model,
        args.keep_going,
    )
    subject = make_engine(options)
    try:
        profile, result = corpora.replay_checked(path, scenario, subject, options)
    except corpora.Skipped as skipped:
        print(f"SKIPPED {path}: {skipped}")
        return 0
    finally:
        subject.close()
    found = result.divergence
    if found is None:
        print(
            f"{path}: {subject.name} agrees at all {result.answers} answers; {agreement(profile)}"
        )
        return 0
    add_states(found, scenario, ModelEngine(profile), make_engine(options))
    print(found.report(str(path), ("expected", subject.name)), flush=True)
    last = len(scenario.events) if found.position is None else found.position + 1
    cut = replace(scenario, events=scenario.events[:last], lines=None)
    print(f"shrinking ({args.shrink_seconds:g} s at most) ...", flush=True)
    small = shrink(
        cut, lambda s: diverges(s, profile, lambda: make_engine(options)), args.shrink_seconds
    )
    small = replace(
        small,
        generator=f"bridge compare: shrunk from {path.name} against {subject.name}",
        notes={
            "shrunk_from": path.name,
            "engine": subject.name,
            "events_before": len(scenario.events),
        },
    )
    target = write_regression(small, profile, args.regressions, f"{path.stem}-{slug(subject.name)}")
    page = show.write_divergence_report(
        target.with_suffix(".html"), scenario, found, ("model", subject.name), profile, small
    )
    print(f"shrunk to {len(small.events)} of {len(scenario.events)} events: {target}")
    print(f"the divergence shown: {page}")
    print(f"replay it: python -m bridge compare {target} --engine {json.dumps(subject.name)}")
    return 1


def replay(args: argparse.Namespace) -> int:
    path: Path = args.file
    scenario = read(path)
    options = Options(args.engine, args.timeout, read_profile(args.profile))
    subject = make_engine(options)
    try:
        ready = subject.start(scenario)
        profile = profile_of(ready.profile, options.profile, subject.name)
        for exchange in from_model(scenario, profile, strict=False):
            subject.send(exchange.line)
            answer = subject.receive()
            where = {"at": exchange.position} if exchange.position is not None else {"detail": True}
            print(json.dumps({**where, **answer}, ensure_ascii=False))
    finally:
        subject.close()
    return 0


def load_known(path: Path | None) -> set[str]:
    """Scenario names listed in a known-failures file: one per line, `#` comments."""
    if path is None:
        return set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--known-failures {path}: cannot be read: {error}") from None
    return {line.split("#")[0].strip() for line in text.splitlines()} - {""}


def corpus(args: argparse.Namespace) -> int:
    paths = corpora.choose(corpora.files(args.paths), args.only, args.skip)
    if not paths:
        raise UsageError("no scenario left to check (see --only and --skip)")
    known = load_known(args.known_failures)
    options = Options(
        args.engine,
        args.timeout,
        read_profile(args.profile),
        args.live_model,
        args.keep_going,
        quiet=args.jobs > 1,
        report=args.report,
    )
    began = time.monotonic()
    verdicts = []
    said = ""
    for k, verdict in enumerate(corpora.check_all(paths, options, args.jobs), start=1):
        verdicts.append(verdict)
        said = said or verdict.agreement
        seen = report.outcome(verdict, known)
        print(
            f"[{k}/{len(paths)}] {seen:<4} {verdict.path.name} ({verdict.seconds:.1f} s, "
            f"{time.monotonic() - began:.0f} s in all)",
            flush=True,
        )
        if seen not in ("ok",):
            print("    " + verdict.reason.replace("\n", "\n    "), flush=True)
        if seen == "FAIL":
            print(
                f"    python -m bridge compare {verdict.path} --engine {json.dumps(args.engine)}"
                " for the states there and a shrunk scenario",
                flush=True,
            )
        for note in verdict.notes:
            print(f"    note: {note}", flush=True)
    seconds = time.monotonic() - began
    listed = {
        name for name in known if not any(name in (v.path.name, v.path.stem) for v in verdicts)
    }
    for name in sorted(listed):
        print(f"note: {name} is listed as a known failure but was not run")
    verdicts.sort(key=lambda v: paths.index(v.path))
    outcomes = [report.outcome(v, known) for v in verdicts]
    run_report = report.Run(args.engine, said, corpus_version(), seconds, verdicts, known)
    if args.junit_xml:
        report.write_junit(run_report, args.junit_xml)
    if args.json:
        report.write_json(run_report, args.json)
    counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
    if counts.get("ok", 0) + counts.get("expected failure", 0) == len(paths):
        xfail = counts.get("expected failure", 0)
        more = f", {xfail} known failures fail as listed" if xfail else ""
        print(f"ALL {len(paths)} SCENARIOS AGREE{more} ({args.engine}; {said})")
        return 0
    print(
        f"{len(paths)} scenarios: "
        + ", ".join(f"{n} {o}" for o, n in counts.items())
        + f" ({args.engine}{'; ' + said if said else ''})"
    )
    if counts.get("FAULT") or counts.get("BAD") or counts.get("ERROR"):
        return 2
    if counts.get("FAIL") or counts.get("UNEXPECTED PASS"):
        return 1
    return 0


def corpus_version() -> int | None:
    try:
        return expected.version()
    except (OSError, ValueError, KeyError):
        return None


def expect(args: argparse.Namespace) -> int:
    """The model's transcripts of the scenarios: the bundled corpus's with its
    version (bridge/expect.py), or those of scenarios of your own, beside
    them in the layout `corpus` reads (corpus version 0: not the bundled one)."""
    paths = corpora.files(args.paths)
    if expected.bundled(paths):
        current, changed = expected.refresh(paths, args.jobs)
        for name in changed:
            print(f"changed {name}")
        print(f"corpus version {current}")
        return 0
    for name in expected.write_all(expected.make(paths, args.jobs), 0):
        print(f"wrote {name}")
    return 0


def files(args: argparse.Namespace) -> int:
    for what, path in kit.documents().items():
        print(f"{what + ':':<22} {path}")
    return 0


def laws(rest: list[str]) -> int:
    try:
        from laws.__main__ import main as laws_main
    except ImportError as error:
        raise UsageError(
            f"the laws need the `laws` extra ({error.name} is missing): "
            "pip install 'optchat-spec[laws]'"
        ) from None
    return laws_main(rest)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m bridge", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"optchat-spec {__version__} (corpus version {corpus_version()})",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def engine_options(command: argparse.ArgumentParser) -> None:
        command.add_argument("--engine", default="impl", help="model, impl, or a protocol command")
        command.add_argument(
            "--profile", type=Path, help="the engine's profile (SPEC 10), if it declares none"
        )
        command.add_argument("--timeout", type=float, default=10.0, help="seconds per answer")

    run_corpus = commands.add_parser("corpus", help="an engine on many scenarios")
    run_corpus.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="folders or files")
    engine_options(run_corpus)
    run_corpus.add_argument("--only", action="append", default=[], metavar="GLOB")
    run_corpus.add_argument("--skip", action="append", default=[], metavar="GLOB")
    run_corpus.add_argument("--known-failures", type=Path, metavar="FILE")
    run_corpus.add_argument("--junit-xml", type=Path, metavar="PATH")
    run_corpus.add_argument("--json", type=Path, metavar="PATH")
    run_corpus.add_argument(
        "--report", type=Path, metavar="DIR", help="one HTML page per failing scenario (show)"
    )
    run_corpus.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    run_corpus.add_argument(
        "--live-model", action="store_true", help="the model instead of the committed transcripts"
    )
    run_corpus.add_argument(
        "--keep-going", action="store_true", help="compare past a scenario's first divergence"
    )

    run_compare = commands.add_parser("compare", help="an engine on one scenario")
    run_compare.add_argument("file", type=Path)
    engine_options(run_compare)
    run_compare.add_argument("--regressions", type=Path, default=REGRESSIONS, metavar="DIR")
    run_compare.add_argument("--shrink-seconds", type=float, default=60.0)
    run_compare.add_argument("--live-model", action="store_true")
    run_compare.add_argument("--keep-going", action="store_true")

    run_replay = commands.add_parser("replay", help="an engine's answers to one scenario")
    run_replay.add_argument("file", type=Path)
    engine_options(run_replay)

    run_expect = commands.add_parser("expect", help="make the committed transcripts again")
    run_expect.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    run_expect.add_argument("--jobs", type=int, default=os.cpu_count() or 1)

    show.add_parser(commands)
    fuzz.add_parser(commands, engine_options)
    commands.add_parser("laws", help="the laws of SPEC 8 (python -m laws --help)", add_help=False)
    commands.add_parser("files", help="where the kit's documents and data are")
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["laws"]:
        try:
            return laws(argv[1:])
        except UsageError as error:
            print(f"optchat-spec: {error}", file=sys.stderr)
            return 2
    args = parser().parse_args(argv)
    command: dict[str, Any] = {
        "corpus": corpus,
        "compare": compare,
        "replay": replay,
        "expect": expect,
        "files": files,
    }
    try:
        if args.command in command:
            return int(command[args.command](args))
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
        print("interrupted", file=sys.stderr)
        return 2
