"""Fuzz aims at events that break two rules of SPEC 4.1 at once: an engine
that checks two rules in the other order than SPEC's is caught within 40
histories (the strategy before this found neither of the two below in 40),
and most aimed events do break two rules, as scenarios/generate.py's reading
of SPEC 4.1's table (`broken_rules`) says."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bridge.cli as cli
from model import machine
from model.errors import Refused
from scenarios.generate import broken_rules
from scenarios.strategies import CONSTANTS, below, draw_event, two_rules

ROOT = Path(__file__).resolve().parents[2]
SWAPPED = ROOT / "tests" / "scenarios" / "engines" / "swapped.py"


@pytest.mark.parametrize("rule", ["utf8", "settle_needs_summaries"])
def test_an_engine_checking_two_rules_the_other_way_is_caught(
    rule: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    engine = f"{sys.executable} {SWAPPED} {rule}"
    argv = ["fuzz", "--engine", engine, "--seed", "1", "--histories", "40", "--max-causes", "1"]
    # The catch is the claim: one shrinking replay (shrinking: test_shrink.py, test_fuzz.py).
    code = cli.main([*argv, "--shrink-tries", "1", "--regressions", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert re.search(r'^DIVERGED .*: refused differs, expected "', out, re.M), out


def test_most_aimed_events_break_two_rules() -> None:
    seen = []

    @settings(max_examples=25, derandomize=True, database=None, deadline=None)
    @given(CONSTANTS, st.data())
    def history(constants: object, data: st.DataObject) -> None:
        state = machine.initial(constants)  # type: ignore[arg-type]
        for _ in range(data.draw(below(40))):
            aimed = two_rules(data, state)
            seen.append(len(broken_rules(state, aimed)) >= 2)
            event = draw_event(data, state)
            try:
                state = machine.step(state, event)
            except Refused:
                state = machine.refuse(state)

    history()
    assert len(seen) > 200
    print(f"two rules broken by {sum(seen)} of {len(seen)} aimed events")
    assert sum(seen) / len(seen) > 0.5, sum(seen) / len(seen)
