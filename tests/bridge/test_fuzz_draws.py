"""`fuzz` draws a history and the model's answers to it in one pass
(bridge/runs/fuzz_draws.py): those answers are the ones the model gives
when the history is replayed as a scenario (bridge/wire/stream.py
`from_model`, what `compare` does), and the events are drawn from the
state the model is in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.runs.fuzz_draws import Chance, bound, drawn
from bridge.wire.stream import from_model
from model.constants import Constants
from model.profile import Profile
from scenarios.strategies import CONSTANTS, below, engine_profiles, replies, texts

SMALL = Constants(node=16, ceiling=96, floor=48, cceiling=48, cfloor=16)

SEED_LISTS = st.lists(st.integers(0, (1 << 32) - 1), max_size=60)


@settings(max_examples=40, derandomize=True, database=None, deadline=None)
@given(CONSTANTS, SEED_LISTS, engine_profiles())
def test_the_answers_drawn_are_the_models_replay(
    constants: Constants, seeds: list[int], profile: Profile
) -> None:
    scenario, exchanges = drawn(constants, seeds, profile)
    if profile.self_calls:
        assert exchanges is None
        assert all(event["event"] != "start" for event in scenario.events)
        return
    assert exchanges is not None
    replayed = list(from_model(scenario, profile, strict=False))
    assert [(e.line, e.position, e.expected) for e in exchanges] == [
        (e.line, e.position, e.expected) for e in replayed
    ]


def test_histories_reach_calls_batches_and_refusals() -> None:
    """Drawn from the model's state: calls are started and ended, views merge,
    and some events are refused on purpose."""
    kinds: set[str] = set()
    refused = merged = 0
    for first in range(30):
        seeds = [first * 1000 + k for k in range(80)]
        _, exchanges = drawn(SMALL, seeds, Profile())
        assert exchanges is not None
        for exchange in exchanges[:-1]:
            kinds.add(exchange.line["event"])
            refused += "refused" in exchange.expected
            merged += bool(exchange.expected.get("merges"))
    assert kinds >= {"message", "start", "end", "fail", "wait", "zoom"}, kinds
    assert refused > 0 and merged > 0, (refused, merged)


def test_a_chance_answers_the_draws_an_event_asks_for() -> None:
    chance = Chance(7, 32)
    assert all(0 <= chance.draw(below(n)) < n for n in (1, 2, 61, 300) for _ in range(20))
    assert bound(below(4000)) == 4000
    message_texts = [chance.draw(texts(32)) for _ in range(200)]
    assert any(len(t.encode()) > 32 for t in message_texts)  # longer than NODE
    assert any("\r" in t or "\u2028" in t for t in message_texts)
    assert all(len(t.encode()) <= 6 * 32 for t in message_texts if len(t) > 12)
    lists = [chance.draw(replies(32)) for _ in range(200)]
    assert all(1 <= len(r) <= 7 for r in lists)
    same = [r for r in lists if len(r) > 1 and len({len(x.encode()) for x in r}) == 1]
    assert any(len(r[0].encode()) > 32 for r in same)  # over-long replies of one size
