"""The family of events that break two rules at once: SPEC 4.1 names the
first rule of its table's order. One scenario per pair of rules that can
meet; the model names the first rule, as SPEC's table orders them (read from
SPEC.md, not from the model); an engine that checks the second rule first
fails on its pair's scenario, where the single-rule refusal family lets it
pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bridge.runs.corpus import Options, check
from bridge.wire.inprocess import model_event
from bridge.wire.stream import resolved
from model import machine
from model.constants import Constants
from model.errors import Refused
from scenarios import format as scenario_format
from scenarios import generate
from tests.scenarios.spec import refusal_orders

CORPUS = Path(generate.__file__).parent / "corpus"
SWAPPED = Path(__file__).parent / "engines" / "swapped.py"


def name(first: str, second: str) -> str:
    return f"both_{first}_{second}"


def swapped(rule: str) -> str:
    """The engine with `rule` checked before every other rule of its event."""
    return f"{sys.executable} {SWAPPED} {rule}"


def test_each_pair_has_its_scenario_and_spec_s_table_orders_the_pair() -> None:
    files = sorted(path.stem for path in CORPUS.glob("both_*.jsonl"))
    assert files == sorted(name(*pair) for pair in generate.PAIRS)
    for first, second in generate.PAIRS:
        rows = [r for r in refusal_orders().values() if first in r and second in r]
        assert rows and all(r.index(first) < r.index(second) for r in rows), (first, second)
        notes = scenario_format.read(CORPUS / f"{name(first, second)}.jsonl").notes
        assert notes["family"] == "both" and notes["rules"] == [first, second]


@pytest.mark.parametrize("pair", generate.PAIRS, ids=lambda pair: name(*pair))
def test_the_model_names_the_rule_spec_s_table_puts_first(pair: tuple[str, str]) -> None:
    scenario = scenario_format.read(CORPUS / f"{name(*pair)}.jsonl")
    state = machine.initial(Constants(**scenario.constants))
    named: list[str] = []
    for position, event in enumerate(scenario.events):
        # A relative event (scenario format 3) as the bridge sends it; under
        # SPEC's profile each has its call (bridge/PROTOCOL.md).
        absolute = resolved(event, state)
        assert absolute is not None, position
        step = model_event(absolute, position)
        if "refused" not in event:
            state = machine.step(state, step)
            continue
        order = refusal_orders()[event["event"]]
        expected = min(pair, key=order.index)
        assert event["refused"] == expected
        with pytest.raises(Refused) as refused:
            machine.step(state, step)
        named.append(refused.value.rule)
        state = machine.refuse(state)
    assert len(named) >= 2 and set(named) == {pair[0]}


def test_an_engine_checking_the_second_rule_first_fails_on_the_pair() -> None:
    """Every pair in one test: an engine that takes sessions is kept from one
    scenario to the next within a test (bridge/runs/corpus.py `KEPT`), so
    the pairs that name a rule share its engine's process."""
    for pair in generate.PAIRS:
        path = CORPUS / f"{name(*pair)}.jsonl"
        verdict = check(path, Options(swapped(pair[1]), quiet=True))
        assert verdict.status == "FAIL", (pair, verdict.reason)
        assert "refused differs, expected " in verdict.reason, (pair, verdict.reason)
        assert verdict.reason.endswith(" of SPEC 4.1)"), (pair, verdict.reason)
        assert check(path, Options(swapped(pair[0]), quiet=True)).status == "ok", pair


def test_the_single_rule_refusals_let_such_an_engine_pass() -> None:
    """Why the family exists: checking `utf8` before `kind` breaks no
    scenario of the refusal family, each of which breaks one rule at a time."""
    for scenario in ("refused_kind_0", "refused_utf8_0", "refused_utf8_1"):
        verdict = check(CORPUS / f"{scenario}.jsonl", Options(swapped("utf8"), quiet=True))
        assert verdict.status == "ok", (scenario, verdict.reason)
    both = check(CORPUS / f"{name('kind', 'utf8')}.jsonl", Options(swapped("utf8"), quiet=True))
    assert both.status == "FAIL"
