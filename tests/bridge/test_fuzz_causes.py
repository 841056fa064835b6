"""`fuzz` goes on after a divergence (issue 34): on an engine with one
difference no profile option declares (a node's zoom newest first, seen in
most histories) and one planted bug (a batch that stops above FLOOR said
not to be shrinking, SPEC 3.3), it reports both, each once with its
shrunk scenario, within its budget of histories, on each of three seeds; a
list of the causes it found, given back, makes it pass over them. The
engine runs in this process (impl's planner, its answers changed), so
that the budget is histories and replays, and cheap."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bridge import cli
from bridge.checking.causes import parse, read_known, signature
from bridge.runs.corpus import Options
from bridge.runs.fuzz import started
from bridge.wire import factory
from bridge.wire.engine import Engine
from bridge.wire.inprocess import ImplEngine
from scenarios import format as scenario_format
from scenarios.format import Scenario
from tests.bridge.engines.zoom_newest_first import newest_first

BUDGET = ["--histories", "120", "--max-events", "30", "--shrink-tries", "30"]


class Planted(ImplEngine):
    """impl, its zoom on a node newest first, its shrinking flag lost."""

    name = "planted"

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        answer = newest_first(line, super().answer(line))
        if line.get("event") == "message" and answer.get("shrinking") is True:
            answer["shrinking"] = False
        return answer


@pytest.fixture(autouse=True)
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--engine planted` is the engine above."""
    pytest.importorskip("hypothesis")
    made = factory.engine

    def engine(spec: str, *args: Any, **named: Any) -> Engine:
        return Planted() if spec == "planted" else made(spec, *args, **named)

    monkeypatch.setattr(factory, "engine", engine)


def fuzz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(["fuzz", "--engine", "planted", *BUDGET, *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_a_known_difference_hides_no_bug_behind_it(
    seed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found, listed = tmp_path / "found", tmp_path / "causes.txt"
    code, out = fuzz(
        capsys, "--seed", seed, "--regressions", str(found), "--write-known-causes", str(listed)
    )
    assert code == 1, out
    causes = re.findall(r"^  \d+\. (\S+): .*\n     (\S+)$", out, re.M)
    assert sorted(cause.split(":")[0] for cause, _ in causes) == ["views@message", "zoom@zoom"]
    assert re.search(r"^fuzz found 2 causes of divergence:$", out, re.M), out
    assert len(re.findall(r"^cause ", out, re.M)) == 2  # each reported once
    for cause, path in causes:
        kept = scenario_format.read(Path(path))
        assert kept.notes["cause"] == cause and Path(path).parent == found / "scenarios"
    # The bug's shrunk scenario shows the lost flag; the zoom's, a zoom.
    views = scenario_format.read(Path(next(p for c, p in causes if c.startswith("views"))))
    zoom = scenario_format.read(Path(next(p for c, p in causes if c.startswith("zoom"))))
    assert {e["event"] for e in views.events} >= {"message"} and "zoom" not in str(views.events)
    assert any(e["event"] == "zoom" and e["n"] >= 2 for e in zoom.events)
    assert sorted(c.id for c in read_known(listed)) == sorted(cause for cause, _ in causes)
    if seed != "3":
        return
    # Given back, the list is passed over: no cause is left to report.
    code, out = fuzz(capsys, "--seed", "4", "--known-causes", str(listed))
    assert code == 0, out
    assert re.search(
        r"^no divergence of a cause not known \(passing over 2\) in 120 histories", out, re.M
    )
    assert re.search(r"^passed over \d+ diverging histories of known causes \(", out, re.M), out


LOST_FLAG = Scenario(
    {"node": 16, "ceiling": 96, "floor": 70, "cceiling": 65, "cfloor": 37, "jobs": 3}
    | {"ahead": 3, "tries": 1, "failures": 1, "retry": 10, "settle_timeout": 20, "tool_cap": 30000},
    [
        {"event": "message", "kind": "tool", "text": "éa \r\n😀\r😀b€😀"},
        {"event": "message", "kind": "user", "text": "t\rmore\nend. chat é€ 😀 line\r\nnext" * 2},
        {"event": "zoom", "id": 0, "n": 2},
        {"event": "message", "kind": "user", "text": " line\r\nnext\rmore\nend. chat é€" * 2},
        {"event": "message", "kind": "unii", "text": " a\ra \n 😀 é "},
    ],
)
"""A history whose zoom shows the known difference first, and whose last
message's batch stops above FLOOR, which the engine says is not shrinking
(found by `fuzz` on it, then a zoom put before that batch)."""


def test_a_history_is_replayed_again_past_the_known_difference() -> None:
    fuzzer = started(Planted(), Options("planted"), None, 10)
    first = fuzzer.replay(LOST_FLAG)
    assert first is not None and first.position == 2 and first.field == "zoom"
    fuzzer.known = [parse("zoom@zoom:message+zoom")]
    scenario, found = fuzzer.effective(LOST_FLAG)
    assert found is not None and signature(found).id == "views@message"
    assert found.field == "shrinking" and scenario.events == [
        e for e in LOST_FLAG.events if e["event"] != "zoom"
    ]
    assert fuzzer.passed == {"zoom@zoom:message+zoom": 1} and fuzzer.past == 1
