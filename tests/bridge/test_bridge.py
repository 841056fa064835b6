"""The bridge compares: the model and the engine agree answer by answer, a
divergence is named by its event and field with both states shown, a broken
engine yields a shrunk regression, and lean answers catch a wrong engine at
the event where it goes wrong."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import bridge.cli as cli
import impl
from bridge.checking import compare
from bridge.checking.compare import first_difference, run
from bridge.formats.profile import SPEC
from bridge.wire.engine import InProcess, Ready
from bridge.wire.inprocess import ImplEngine, ModelEngine
from bridge.wire.observe import crc, digest, line_hash
from bridge.wire.process import ProcessEngine
from bridge.wire.stream import from_model
from impl import digest as impl_digest
from impl import view as impl_view
from model import machine
from model.constants import Constants
from model.events import Message
from scenarios import format as scenario_format
from scenarios.format import Scenario
from tests.bridge.helpers import NEVER, random_scenario

PROTOCOL = f"{sys.executable} -m impl.protocol"


def agrees(scenario: Scenario, engine: Any) -> compare.Result:
    ready = engine.start(scenario)
    try:
        return run(from_model(scenario, SPEC, strict=True), engine, ready)
    finally:
        engine.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_model_and_engine_agree_at_every_answer(seed: int) -> None:
    scenario = random_scenario(seed, 400)
    result = agrees(scenario, ImplEngine())
    assert result.divergence is None
    assert result.answers == len(scenario.events) + 1  # every event, and the final detail


def test_the_protocol_engine_agrees_with_the_model() -> None:
    scenario = random_scenario(4, 300)
    assert agrees(scenario, ProcessEngine(PROTOCOL)).divergence is None


class Lying(InProcess):
    """The engine of impl/, but one answer has one field changed."""

    name = "lying"

    def __init__(self, at: int, field: str, value: Any) -> None:
        super().__init__()
        self.inner, self.at, self.field, self.value = ImplEngine(), at, field, value

    def start(self, scenario: Scenario) -> Ready:
        self.answers.clear()
        return self.inner.start(scenario)

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        answer = self.inner.answer(line)
        if line.get("at") == self.at:
            answer = {**answer, self.field: self.value}
        return answer


@pytest.mark.parametrize(
    ("field", "value"),
    [("size", -1), ("view_digest", 7), ("queue", [[9, 9]]), ("shrinking", 0), ("x-note", 1)],
)
def test_a_divergence_names_its_event_and_field(field: str, value: Any) -> None:
    scenario = random_scenario(5, 120)
    result = agrees(scenario, Lying(60, field, value))
    if field.startswith("x-"):
        assert result.divergence is None, "a field of the engine's own (x-) is not compared"
        return
    found = result.divergence
    assert found is not None and (found.position, found.field) == (60, field)
    # 0 == False in Python; a JSON number for a boolean is still a difference.
    assert found.found == value


def test_a_divergence_shows_both_whole_states_there() -> None:
    scenario = random_scenario(6, 200)
    at = next(p for p, e in enumerate(scenario.events) if e["event"] == "message" and p > 50)
    found = agrees(scenario, Lying(at, "view_digest", 0)).divergence
    assert found is not None
    compare.add_states(found, scenario, ModelEngine(), ImplEngine())
    assert found.states is not None
    model_state, engine_state = found.states
    assert model_state["render"] == engine_state["render"]  # the lie was in the digest only
    report = found.report("s.jsonl", ("model", "lying"))
    assert f"event {at} (file line {at + 2})" in report and "render: equal" in report


def test_an_unknown_field_is_a_difference_and_x_fields_are_not() -> None:
    expected = {"size": 1, "shrinking": False}
    assert first_difference(expected, {**expected, "x-debug": [1]}, None, True) is None
    assert first_difference(expected, {**expected, "extra": 1}, None, True) == "extra"
    assert first_difference(expected, {"size": 1, "shrinking": 0}, None, True) == "shrinking"
    refused = {"size": 1, "shrinking": False, "refused": "jobs_bound"}
    assert first_difference(refused, {**refused, "refused": True}, None, True) == "refused"
    assert first_difference(refused, {**refused, "refused": True}, None, False) is None
    assert first_difference(refused, expected, None, False) == "refused"


def test_digests_and_crcs_are_the_documented_ones() -> None:
    """The values in bridge/PROTOCOL.md were computed by a separate JavaScript
    implementation (Math.imul); CRC-32 of "123456789" is the standard check value."""
    for hash_of in (line_hash, impl_digest.line_hash):
        assert hash_of(0, 0) == 824_515_495
    assert digest([]) == 0
    assert digest([[0, 0], [0, 1]]) == 681_398_489
    assert digest([[1, 0]]) == 1_722_258_072
    assert crc("123456789") == 0xCBF43926


def test_a_refused_event_made_no_batch() -> None:
    """SPEC 4.1: after a refused event `merges` is empty, in the model and the engine."""
    # "user: x" is 7 bytes, a free leaf; two of them make a free 15-byte parent.
    # Six lines weigh 42 bytes, over CEILING 40: the sixth message's batch merges.
    constants = Constants(node=16, ceiling=40, floor=10, cceiling=40, cfloor=10)
    events = [{"event": "message", "kind": "user", "text": "x"} for _ in range(6)]
    events.append({"event": "message", "kind": "bot", "text": "x", "refused": "kind"})
    scenario = Scenario(scenario_format_constants(constants), events)
    state = machine.initial(constants)
    for k in range(6):
        state = machine.step(state, Message("user", "x"))
        assert bool(machine.merges(state)) == (k == 5)
    for engine in (ModelEngine(), ImplEngine()):
        engine.start(scenario)
        answers = [engine.answer({**e, "at": p}) for p, e in enumerate(events)]
        assert answers[5]["merges"] and answers[6]["refused"] == "kind"
        assert answers[6]["merges"] == [] and answers[6]["cmerges"] == []


def scenario_format_constants(c: Constants) -> dict[str, int | float]:
    return {name: getattr(c, name) for name in scenario_format.CONSTANTS}


class Spaced(InProcess):
    """The engine of impl/, its answers written back with other spacing and
    key order, as another language's JSON library may write them."""

    name = "spaced"

    def __init__(self) -> None:
        super().__init__()
        self.inner = ImplEngine()

    def start(self, scenario: Scenario) -> Ready:
        self.answers.clear()
        return self.inner.start(scenario)

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(self.inner.answer(line), sort_keys=True, indent=1)
        return json.loads(text)  # type: ignore[no-any-return]


def test_answers_are_compared_as_values_not_as_text(tmp_path: Path) -> None:
    path = tmp_path / "corpus" / "s.jsonl"
    scenario_format.write(random_scenario(7, 150), path)
    assert cli.main(["expect", str(path), "--jobs", "1"]) == 0
    scenario = scenario_format.read(path)
    from bridge.wire.stream import exchanges

    engine = Spaced()
    ready = engine.start(scenario)
    assert run(exchanges(path, scenario, SPEC, live=False), engine, ready).divergence is None


def most_due_from_first(view: impl_view.View) -> tuple[int, int] | None:
    """The engine's pair choice with the classic bug: due (T - first) / 2^l."""
    best, chosen = None, None
    for level, heap in view.pairs.items():
        first = heap[0] << level
        key = ((view.count - first) << (view.top - level), -first)
        if best is None or key > best:
            best, chosen = key, (level, heap[0])
    return chosen


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_a_broken_engine_yields_a_shrunk_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(impl_view.View, "most_due", most_due_from_first)
    path = tmp_path / "long.jsonl"
    scenario = next(
        s
        for seed in range(10, 40)
        if agrees(s := random_scenario(seed, 500), ImplEngine()).divergence is not None
    )
    scenario_format.write(scenario, path)
    regressions = tmp_path / "found"
    code = cli.main(
        ["compare", str(path), "--engine", "impl", "--regressions", str(regressions)]
        + ["--shrink-tries", "300", "--shrink-seconds", NEVER]
    )
    # Its budget counted in replays, the cap only a hang guard: stopped early
    # by 3 wall seconds, a shrink could end past its divergence (it did twice
    # at a load average near 10).
    assert code == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE in" in out and "field" in out
    (written,) = (regressions / "scenarios").glob("long-*-impl-*.jsonl")
    shrunk = scenario_format.read(written)
    assert len(shrunk.events) < len(scenario.events)
    assert agrees(shrunk, ImplEngine()).divergence is not None
    # One event fewer at the end no longer diverges: the scenario ends at the divergence.
    cut = replace(shrunk, events=shrunk.events[:-1], lines=None)
    assert agrees(cut, ImplEngine()).divergence is None
    # Its transcript is written beside it, in the layout `corpus` reads.
    assert (regressions / "expected" / "scenarios" / f"{written.stem}.jsonl.gz").exists()
    assert cli.main(["corpus", str(regressions / "scenarios"), "--engine", "model"]) == 0
