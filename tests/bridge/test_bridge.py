"""The bridge: model and engine agree on replays, a broken engine yields a
shrunk regression, engine faults are faults, bad scenarios are named."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import bridge.cli as cli
import impl
from bridge import compare
from bridge.engines import EngineFault, ImplEngine, ModelEngine, ProcessEngine
from bridge.transcript import read as read_transcript
from bridge.transcript import replay, write
from impl import view as impl_view
from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario

FAULTY = Path(__file__).parent / "engines" / "faulty.py"
ADAPTER = f"{sys.executable} -m impl.protocol"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_model_and_engine_agree_at_every_event(seed: int) -> None:
    scenario = random_scenario(seed, 400)
    assert compare.diverge(scenario, ModelEngine(), ImplEngine()) is None


def test_the_protocol_adapter_agrees_with_the_model() -> None:
    scenario = random_scenario(4, 300)
    assert compare.diverge(scenario, ModelEngine(), ProcessEngine(ADAPTER)) is None


def test_a_transcript_round_trips_compressed(tmp_path: Path) -> None:
    transcript = replay(random_scenario(5, 400), ModelEngine())
    write(transcript, tmp_path / "t.jsonl.gz")
    assert read_transcript(tmp_path / "t.jsonl.gz") == transcript
    batches = [r for r in transcript if r["merges"]]
    assert batches and all("render" in r for r in batches)
    assert "render" in transcript[-1]


def most_due_from_first(view: impl_view.View) -> tuple[int, int] | None:
    """The engine's pair choice with the classic bug: due (T - first) / 2^l."""
    best, chosen = None, None
    for level, heap in view.pairs.items():
        first = heap[0] << level
        key = ((view.count - first) << (view.top - level), -first)
        if best is None or key > best:
            best, chosen = key, (level, heap[0])
    return chosen


@pytest.mark.skipif(impl.COMPILED, reason="a patch never reaches the C build; see below")
def test_a_broken_engine_yields_a_shrunk_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(impl_view.View, "most_due", most_due_from_first)
    monkeypatch.setattr(cli, "REGRESSIONS", tmp_path)
    path = tmp_path / "long.jsonl"
    scenario = next(
        s
        for seed in range(10, 40)
        if compare.diverge(s := random_scenario(seed, 500), ModelEngine(), ImplEngine())
    )
    scenario_format.write(scenario, path)
    assert cli.main(["compare", str(path), "--engine", "impl", "--shrink-seconds", "60"]) == 1
    out = capsys.readouterr().out
    assert "DIVERGENCE in" in out and "field" in out
    shrunk = scenario_format.read(tmp_path / "long-impl.jsonl")
    assert len(shrunk.events) < len(scenario.events)
    assert compare.valid(shrunk)
    assert compare.diverge(shrunk, ModelEngine(), ImplEngine()) is not None
    # One event fewer at the end no longer diverges: the scenario ends at the divergence.
    cut = replace(shrunk, events=shrunk.events[:-1])
    assert compare.diverge(cut, ModelEngine(), ImplEngine()) is None


@pytest.mark.skipif(not impl.COMPILED, reason="the test above runs here")
def test_a_broken_engine_yields_a_shrunk_regression_in_plain_python() -> None:
    """The test above, in a process where the planner is plain Python: compiled
    code calls its own methods, not a patched class attribute."""
    test = f"{__file__}::test_a_broken_engine_yields_a_shrunk_regression"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=-q", "-p", "no:cacheprovider", test],
        env={**os.environ, "OPTCHAT_PURE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("crash", "closed its output (crashed?) at event 3 (message)"),
        ("hang", "gave no answer within 1 s at event 3 (message)"),
        ("garbage", "printed garbage: b'hello, I am not JSON' at event 3"),
        ("short", "answered without size, shrinking"),
    ],
)
def test_engine_faults_name_the_event(how: str, said: str) -> None:
    scenario = replace(
        random_scenario(6, 10), events=[{"event": "message", "kind": "user", "size": 3}] * 6
    )
    engine = ProcessEngine(f"{sys.executable} {FAULTY} {how} 3", timeout=1)
    with pytest.raises(EngineFault) as caught:
        replay(scenario, engine)
    assert said in str(caught.value)
    if how == "crash":
        assert "exit code 3" in str(caught.value) and "boom" in str(caught.value)


def test_an_engine_fault_is_not_a_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    scenario_format.write(random_scenario(7, 20), path)
    code = cli.main(["compare", str(path), "--engine", f"{sys.executable} {FAULTY} crash 2"])
    assert code == 2
    err = capsys.readouterr().err
    assert "ENGINE FAULT (not a divergence)" in err and "event 2" in err


def test_an_impossible_event_is_named_with_file_line_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = random_scenario(8, 5)
    bad = replace(scenario, events=[*scenario.events, {"event": "start", "node": [5, 0]}])
    path = tmp_path / "bad.jsonl"
    scenario_format.write(bad, path)
    assert cli.main(["compare", str(path), "--engine", "impl"]) == 2
    assert f"{path}:7: impossible event: node_exists" in capsys.readouterr().err


def test_a_malformed_scenario_is_named_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    lines = list(scenario_format.dump(random_scenario(9, 3)))
    path.write_text("\n".join([*lines, '{"event": "teleport"}']) + "\n")
    assert cli.main(["compare", str(path), "--engine", "impl"]) == 2
    assert f"{path}:5: unknown event 'teleport'" in capsys.readouterr().err
