"""The corpus measure times real work: both planners replay the same events
and end with the same observations, and a refused event is not hidden."""

from __future__ import annotations

from typing import Any

import pytest

from bench.corpus import impl_replay, materialized, model_replay
from bridge.formats.layout import files
from model import bits


def plain(value: Any) -> Any:
    """Model values as the engine's: nodes as (level, int index)."""
    if hasattr(value, "level") and hasattr(value, "index"):
        return (value.level, bits.to_int(value.index))
    if isinstance(value, tuple | list):
        return tuple(plain(v) for v in value)
    return value


@pytest.mark.parametrize(
    "path",
    sorted((p for p in files() if p.stem.startswith("random")), key=lambda p: p.stat().st_size)[:3],
)
def test_both_replays_end_with_the_same_observations(path: Any) -> None:
    scenario, events = materialized(path)
    _, model = model_replay(scenario, events)
    _, engine = impl_replay(scenario, events)
    assert len(model) == len(engine) == 10  # the last event also renders
    assert plain(model) == plain(engine)
    assert engine[0], "the view is not empty: the events were applied"


def test_materialized_events_carry_their_texts() -> None:
    scenario, events = materialized(sorted(files())[0])
    messages = [e for e in events if e["event"] == "message"]
    assert messages and all("text" in e and "size" not in e for e in messages)
    assert len(events) == len(scenario.events)
