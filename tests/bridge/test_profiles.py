"""Engines that deviate from SPEC on purpose (SPEC 10): a declared profile is
checked on everything else, a real bug is still caught, a start the engine
makes itself is checked, and an engine that cannot take a scenario skips it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import bridge.cli as cli
from bridge.formats.kit import CORPUS, PROFILES
from bridge.formats.profile import parse
from bridge.runs.corpus import Options, check
from bridge.wire.process import ProcessEngine
from bridge.wire.stream import from_model
from scenarios import format as scenario_format
from scenarios.format import Scenario

ENGINES = Path(__file__).parent / "engines"
DEVIANT = PROFILES / "deviant.json"
DECLARED = f"{sys.executable} -m impl.protocol --profile {DEVIANT}"
SAMPLE = ["chooser_0", "refused_end_needs_running_0", "refused_line_fits_1", "zoom_0", "random_07"]
DEVIANT_SAMPLE = [name for name in SAMPLE if name != "refused_line_fits_1"] + ["refused_utf8_0"]
"""The deviant profile's `overlong: kept` and `trim_lines` leave the line_fits
family's refusals untested (below)."""


def assert_agrees(engine: str, names: list[str], agreement: str) -> None:
    """Each scenario of `names` checked as `corpus` checks it, in turn (one
    engine process takes them all: it takes sessions): ok, the engine
    declaring its deviations as `agreement` says."""
    for name in names:
        verdict = check(CORPUS / f"{name}.jsonl", Options(engine, quiet=True))
        assert verdict.status == "ok", (name, verdict.reason)
        assert verdict.agreement == agreement, name


def test_the_deviant_engine_agrees_under_its_declared_profile() -> None:
    assert_agrees(
        DECLARED,
        DEVIANT_SAMPLE,
        "declares deviations: trim_lines; kind_words (unii -> talk, "
        "user -> you); need_first off; failure_cap none; calls self; ahead_in_wait off; "
        "zoom_unbuilt refused; overlong kept; replies_out asks; given_line reply; "
        "trim_set ascii; free_leaves queued; flat_lines; flat_sizes; batches builds",
    )


def test_the_line_fits_family_tests_nothing_under_overlong_kept() -> None:
    """The scenario's refusals are of lines over NODE, which `overlong: kept`
    installs, and of an empty line, which `trim_lines` makes a failed call
    (SPEC 10); under `calls: self` the ends of calls that never start are
    not sent at all. What it exists for is not tested, so it is SKIPPED
    saying so, never ok (issue 33)."""
    path = CORPUS / "refused_line_fits_1.jsonl"
    verdict = check(path, Options(DECLARED, quiet=True))
    assert verdict.status == "SKIPPED", verdict.reason
    # Every marked refusal, the last event's too, which is never sent (its call does not run).
    lines = path.read_text().split("\n")[1:-1]
    marked = [k for k, line in enumerate(lines) if json.loads(line).get("refused") == "line_fits"]
    assert marked[-1] == len(lines) - 1
    said = f"not tested: it exists for its {len(marked)} refusals by line_fits (family refused)"
    assert verdict.reason.startswith(said), verdict.reason


def test_the_engine_agrees_under_the_policies_profile() -> None:
    """SPEC 10's later policies, declared by the engine and checked against
    the transcripts made for them."""
    policies = PROFILES / "policies.json"
    assert_agrees(
        f"{sys.executable} -m impl.protocol --profile {policies}",
        SAMPLE,
        "declares deviations: empty_chat blank_line; retry tick; held_takes_job; "
        "merge_order ready; resume self; empty_reply fails; not_shorter goes_on; "
        "retried first; zoom_one headed; zoom_halves bare; tolerance 1.25; cut word; "
        'ellipsis "…"; trim_set javascript; ahead_limit none; row_sizes',
    )


def test_the_same_engine_under_spec_s_profile_diverges() -> None:
    """The profile is what makes it agree: checked as SPEC's, it diverges."""
    plain = f"{sys.executable} -m impl.protocol"
    assert check(CORPUS / "chooser_0.jsonl", Options(plain, quiet=True)).status == "ok"
    profile = parse(json.loads(DEVIANT.read_text()), str(DEVIANT))
    assert check(CORPUS / "chooser_0.jsonl", Options("impl", profile=profile)).status == "ok"
    conflict = check(CORPUS / "chooser_0.jsonl", Options(plain, profile=profile, quiet=True))
    assert conflict.status == "FAULT" and "declares a profile other than" in conflict.reason


def test_a_real_bug_in_the_deviant_engine_is_a_divergence_shrunk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buggy = f"{sys.executable} {ENGINES / 'deviant_bug.py'} --profile {DEVIANT}"
    path = CORPUS / "chooser_0.jsonl"
    code = cli.main(
        ["compare", str(path), "--engine", buggy, "--regressions", str(tmp_path)]
        + ["--shrink-tries", "2"]
    )
    assert code == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE" in out and "field 'line'" in out
    (shrunk,) = (tmp_path / "scenarios").glob("chooser_0-*.jsonl")
    assert len(scenario_format.read(shrunk).events) < len(scenario_format.read(path).events)
    assert (
        cli.main(
            ["compare", str(shrunk), "--engine", buggy, "--regressions", str(tmp_path)]
            + ["--shrink-tries", "1"]
        )
        == 1
    )
    assert cli.main(["compare", str(shrunk), "--engine", DECLARED]) == 0


def test_an_engine_that_cannot_take_a_scenario_is_skipped_never_passed() -> None:
    picky = f"{sys.executable} {ENGINES / 'picky.py'}"
    small = check(CORPUS / "zoom_0.jsonl", Options(picky, quiet=True))
    assert small.status == "SKIPPED" and "NODE is 512 here, not 64" in small.reason
    assert check(CORPUS / "empty_chat.jsonl", Options(picky, quiet=True)).status == "ok"


def test_an_engine_without_zoom_skips_at_the_first_zoom(tmp_path: Path) -> None:
    picky = f"{sys.executable} {ENGINES / 'picky.py'}"
    constants = scenario_format.read(CORPUS / "steady_3000.jsonl").constants
    events = [
        {"event": "message", "kind": "user", "text": "hi"},
        {"event": "zoom", "id": 0, "n": 1},
    ]
    path = tmp_path / "z.jsonl"
    scenario_format.write(Scenario(constants, events), path)
    verdict = check(path, Options(picky, quiet=True))
    assert verdict.status == "SKIPPED" and "zoom" in verdict.reason
    # Unsupported must say what (PROTOCOL.md): a number there is a fault, never a skip.
    verdict = check(path, Options(f"{picky} --numbered", quiet=True))
    assert verdict.status == "FAULT" and "unsupported without saying what: 7" in verdict.reason


def test_the_worked_example_of_calls_self(tmp_path: Path) -> None:
    """bridge/PROTOCOL.md's worked example, worked by hand: JOBS 2, NODE 64,
    every message over NODE, lines of 40 bytes (two make an 81-byte source)."""
    constants = {**scenario_format.read(CORPUS / "steady_3000.jsonl").constants}
    constants.update(node=64, jobs=2)
    message = {"event": "message", "kind": "user", "size": 100}
    events = [
        message,
        {"event": "start", "node": [0, 0]},
        message,
        {"event": "start", "node": [0, 1]},
        {"event": "end", "node": [0, 1], "size": 40},
        message,
        {"event": "fail", "node": [0, 3]},
        {"event": "end", "node": [0, 0], "size": 40},
    ]
    path = tmp_path / "example.jsonl"
    scenario = Scenario(constants, events)
    scenario_format.write(scenario, path)
    profile_file = tmp_path / "self.json"
    profile_file.write_text('{"calls": "self"}')
    engine = ProcessEngine(f"{sys.executable} -m impl.protocol --profile {profile_file}")
    ready = engine.start(scenario_format.read(path))
    assert ready.profile is not None and ready.profile.self_calls
    sent, answers = [], []
    for exchange in from_model(scenario_format.read(path), ready.profile, strict=False):
        engine.send(exchange.line)
        sent.append(exchange.position)
        answers.append(engine.receive())
    engine.close()
    # Starts are not sent; the fail of (0,3), never started, is never sent.
    assert sent == [0, 2, 4, 5, 7, None]
    started = [a.get("started") for a in answers[:-1]]
    assert started == [[[0, 0]], [[0, 1]], None, [[0, 2]], [[1, 0]]]
    assert answers[1]["queue"] == []
    assert "line" in answers[2] and "line" in answers[4]
