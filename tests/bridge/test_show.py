"""`python -m bridge show`: the report and the sawtooth picture hold what the
model's replay says, bad input is one line and exit 2, and the report opens
in headless Chromium without a console error."""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from dataclasses import replace
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from bridge.checking.against import Comparison
from bridge.checking.compare import Divergence, add_states, run
from bridge.cli import show
from bridge.formats.profile import SPEC
from bridge.outputs import svg
from bridge.outputs.divergence import built_lines, divergence_section, side
from bridge.outputs.page import write_divergence_report
from bridge.outputs.sawtooth import stretches
from bridge.wire import factory
from bridge.wire.engine import Engine, Ready
from bridge.wire.inprocess import ModelEngine, model_event
from bridge.wire.stream import from_model
from model import machine
from model.constants import Constants
from model.errors import Refused
from model.machine import State
from scenarios.format import Scenario
from scenarios.format import write as write_scenario
from tests.bridge.browser import PROBE, chromium, needs_chromium
from tests.bridge.helpers import random_scenario

SCREENSHOT = Path(__file__).resolve().parents[2] / "build" / "show" / "report.png"
"""Where the Chromium test leaves its screenshot, to be looked at."""


class LowCeiling(ModelEngine):
    """An engine that diverges: the model with CEILING cut by a quarter."""

    name = "low-ceiling"

    def start(self, scenario: Scenario) -> Ready:
        c = scenario.constants
        return super().start(replace(scenario, constants={**c, "ceiling": c["ceiling"] * 3 // 4}))


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return replace(random_scenario(1, 400), source="random-1.jsonl")


def states(scenario: Scenario) -> list[State]:
    """The model's state after each event, stepped here without the bridge."""
    state = machine.initial(Constants(**scenario.constants))
    out = []
    for at, event in enumerate(scenario.events):
        try:
            state = machine.step(state, model_event(event, at))
        except Refused:
            state = machine.refuse(state)
        out.append(state)
    return out


def divergence(scenario: Scenario) -> Divergence:
    subject = LowCeiling()
    found = run(from_model(scenario, SPEC, strict=False), subject, subject.start(scenario))
    assert found.divergence is not None
    add_states(found.divergence, scenario, ModelEngine(), LowCeiling())
    return found.divergence


def command(argv: list[str]) -> int:
    """`python -m bridge show ...` as bridge/cli/ runs it."""
    top = argparse.ArgumentParser()
    show.add_parser(top.add_subparsers(dest="command", required=True))
    args = top.parse_args(["show", *argv])
    return int(args.run(args))


def stops(report: Path) -> tuple[list[dict[str, Any]], int]:
    """The views a report holds, and which one it opens at."""
    text = report.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text)
    assert found is not None
    data = json.loads(found.group(1))
    return data["stops"], data["start"]


def test_the_envelope_keeps_each_pixel_columns_extremes_in_order() -> None:
    rng = random.Random(7)
    pairs = [(k / 13, rng.uniform(0, 100)) for k in range(2000)]
    kept = svg.envelope(pairs)
    assert kept[0] == pairs[0] and kept[-1] == pairs[-1]
    assert [pairs.index(p) for p in kept] == sorted(pairs.index(p) for p in kept)
    for column in range(int(pairs[-1][0]) + 1):
        ys = [y for x, y in pairs if int(x) == column]
        shown = [y for x, y in kept if int(x) == column]
        assert min(ys) in shown and max(ys) in shown and len(shown) <= 4


def test_stretches_are_the_runs_of_true_flags() -> None:
    flags = [False, True, True, False, True, False, False, True]
    assert stretches(flags) == [(1, 2), (4, 4), (7, 7)]


def test_the_report_opens_at_the_event_asked_for(scenario: Scenario, tmp_path: Path) -> None:
    replayed = states(scenario)
    at = next(
        k
        for k, s in enumerate(replayed)
        if s.queue.running and not machine.merges(s) and not machine.settled(s)
    )
    path = tmp_path / "random-1.jsonl"
    write_scenario(scenario, path)
    assert command([str(path), "--at", str(at), "-o", str(tmp_path / "r.html")]) == 0
    held, start = stops(tmp_path / "r.html")
    state = replayed[at]
    assert held[start]["at"] == at
    assert len(held[start]["v"]) == len(machine.view(state))
    assert sum(ch.isupper() for ch in held[start]["v"]) == sum(
        machine.text(state, n) is None for n in machine.view(state)
    )
    assert len(held[start]["r"]) == len(state.queue.running)
    batches = {k for k, s in enumerate(replayed) if machine.merges(s)}
    assert batches <= {s["at"] for s in held}


def test_the_sawtooth_picture_marks_every_batch(scenario: Scenario, tmp_path: Path) -> None:
    path = tmp_path / "random-1.jsonl"
    write_scenario(scenario, path)
    assert command([str(path), "-o", str(tmp_path / "saw.svg")]) == 0
    picture = ElementTree.parse(tmp_path / "saw.svg").getroot()
    marks = Counter(e.get("class") for e in picture.iter())
    replayed = states(scenario)
    assert marks["batch"] == sum(bool(machine.merges(s)) for s in replayed) > 0
    assert marks["cbatch"] == sum(bool(machine.compaction_merges(s)) for s in replayed) > 0


def test_an_engine_is_compared_and_its_divergence_shown(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "random-1.jsonl"
    write_scenario(scenario, path)
    assert command([str(path), "--engine", "impl", "-o", str(tmp_path / "ok.html")]) == 0
    agreed = (tmp_path / "ok.html").read_text(encoding="utf-8")
    assert "impl agrees at all" in agreed and 'id="divergence"' not in agreed

    def engines(name: str, timeout: float, profile: Any) -> Engine:
        return LowCeiling()

    monkeypatch.setattr(factory, "engine", engines)
    assert command([str(path), "--engine", "low", "-o", str(tmp_path / "bad.html")]) == 0
    found = divergence(scenario)
    held, start = stops(tmp_path / "bad.html")
    page = (tmp_path / "bad.html").read_text(encoding="utf-8")
    assert escape(f"DIVERGENCE between model and low-ceiling: {found.summary()}") in page
    assert held[start]["at"] == found.position


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["missing.jsonl", "-o", "r.html"], "missing.jsonl: cannot be read"),
        (["{scenario}", "--at", "400", "-o", "r.html"], "--at 400: the scenario has 400 events"),
        (["{scenario}", "-o", "r.png"], "-o r.png: name an .html file"),
        (["{scenario}", "-o", "s.jsonl/r.html"], "a file is where folder s.jsonl should be"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    scenario: Scenario,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_scenario(scenario, tmp_path / "s.jsonl")
    assert command([a.replace("{scenario}", "s.jsonl") for a in argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err


# In headless Chromium.


def open_page(report: Path, *flags: str) -> tuple[Counter[tuple[str | None, str]], dict[str, Any]]:
    """The dumped DOM of a report opened with the probe (and Chromium's
    `flags`): how many elements of each class each SVG (by id) holds, and
    what the probe saw."""
    probed = report.with_name("probed.html")
    probed.write_text(report.read_text(encoding="utf-8").replace("<head>", "<head>" + PROBE, 1))
    dom = chromium(probed, "--dump-dom", *flags)

    class Shapes(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inside: str | None = None
            self.counts: Counter[tuple[str | None, str]] = Counter()
            self.probe = ""
            self.reading = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            given = dict(attrs)
            if tag == "svg":
                self.inside = given.get("id")
            for name in (given.get("class") or "").split():
                self.counts[(self.inside, name)] += 1
            self.reading = given.get("id") == "probe"

        def handle_endtag(self, tag: str) -> None:
            if tag == "svg":
                self.inside = None

        def handle_data(self, data: str) -> None:
            if self.reading:
                self.probe += data

    shapes = Shapes()
    shapes.feed(dom)
    assert shapes.probe, "the page never reached its load event"
    return shapes.counts, json.loads(shapes.probe)


@needs_chromium
def test_the_report_opens_in_chromium_without_errors(scenario: Scenario, tmp_path: Path) -> None:
    found = divergence(scenario)
    assert found.position is not None and found.states is not None
    shrunk = replace(scenario, events=scenario.events[: found.position + 1][-12:])
    report = write_divergence_report(
        tmp_path / "report.html", scenario, found, ("model", "low-ceiling"), SPEC, shrunk
    )
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    # One start of Chromium dumps the DOM and takes the screenshot.
    screenshot = (f"--screenshot={SCREENSHOT}", "--window-size=1100,2000")
    counts, probe = open_page(report, *screenshot)
    assert probe["errors"] == []
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    replayed = states(scenario)
    there = replayed[found.position]
    assert counts[("chat-bar", "line")] == len(machine.view(there))
    assert counts[("chat-bar", "unbuilt")] == sum(
        machine.text(there, n) is None for n in machine.view(there)
    )
    assert counts[("chat-bar", "running")] == len(there.queue.running)
    assert counts[("chat-bar", "queued")] == len(machine.candidates(there))
    assert counts[("cview-bar", "line")] == len(machine.compaction_view(there))
    assert counts[("sawtooth", "batch")] == sum(bool(machine.merges(s)) for s in replayed)
    assert counts[("sawtooth", "cbatch")] == sum(
        bool(machine.compaction_merges(s)) for s in replayed
    )
    ours, theirs = ({tuple(line) for line in s["view"]} for s in found.states)
    assert counts[("expected-bar", "line")] == len(ours)
    assert counts[("found-bar", "line")] == len(theirs)
    assert counts[("expected-bar", "differs")] == len(ours - theirs) > 0
    assert counts[("found-bar", "differs")] == len(theirs - ours) > 0


# What a divergence page draws, and says without its script.


def test_an_engine_s_lines_are_drawn_only_as_it_said(scenario: Scenario) -> None:
    """A line is built, or not, only as that side's render says; a render
    that does not hold one row per line says nothing (drawn neutral)."""
    found = divergence(scenario)
    assert found.states is not None
    expected, engine_state = found.states
    told = side(engine_state, expected, "view")
    assert [line[2] for line in told] == built_lines(engine_state["render"], len(told))
    garbled = {**engine_state, "render": engine_state["render"] + "\nan extra row"}
    assert {line[2] for line in side(garbled, expected, "view")} == {None}
    assert {line[2] for line in side(engine_state, expected, "cview")} == {None}


def test_a_compaction_divergence_draws_both_compaction_views(scenario: Scenario) -> None:
    found = divergence(scenario)
    assert found.states is not None
    moved = replace(found, field="cmerges", expected=[[1, 0]], found=[])
    html, data = divergence_section(Comparison(("model", "e"), "", moved), scenario, 10)
    assert data is not None and {"cexpected", "cfound", "expected", "found"} <= set(data)
    assert 'id="cexpected-bar"' in html and 'id="cfound-bar"' in html
    lines = len(found.states[0]["cview"])
    assert f"model: the compaction view, {lines} lines" in html


def test_the_page_says_the_event_it_opens_at_without_its_script(
    scenario: Scenario, tmp_path: Path
) -> None:
    path = tmp_path / "random-1.jsonl"
    write_scenario(scenario, path)
    assert command([str(path), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    last = len(scenario.events) - 1
    state = states(scenario)[last]
    said = re.search(r'<p id="said">(.*?)</p>', page)
    assert said is not None and said.group(1).startswith(f"event {last}: ")
    assert f"chat view {len(machine.view(state))} lines" in said.group(1)
    empty = tmp_path / "empty.jsonl"
    write_scenario(replace(scenario, events=[]), empty)
    assert command([str(empty), "-o", str(tmp_path / "e.html")]) == 0
    assert '<p id="said">the scenario has no events.</p>' in (tmp_path / "e.html").read_text()
