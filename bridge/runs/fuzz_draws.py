"""The events of one generated history, drawn and replayed through the model
in one pass (`drawn`).

Hypothesis draws a history's constants, its length and a seed per event
(4 bytes each, all in one string of bytes); everything an event's draw asks
for (scenarios/strategies.py `draw_event` and `two_rules`: indices, message
texts, replies) is then drawn from that event's own seed (`Chance`). A
handful of Hypothesis draws per history instead of three to a dozen per
event: Hypothesis's per-draw bookkeeping was half of fuzz's time. Its
shrinker still shortens a history and lowers seeds; the bridge's own pass
(bridge/checking/shrink.py) does the rest.

Each event is answered by the model as it is drawn, and its state is what
the next event is drawn from, so the model steps once per event where it
stepped twice (once to draw, once to replay)."""

from __future__ import annotations

from random import Random
from typing import Any

from hypothesis import strategies as st

from bridge.formats.capabilities import Capability, gives_lines, withheld
from bridge.formats.limits import NONE, Limits
from bridge.wire.inprocess import ModelEngine
from bridge.wire.stream import DETAIL_REQUEST, Exchange, wire
from model.constants import Constants
from model.events import Start
from model.profile import Profile
from scenarios import format as scenario_format
from scenarios.strategies import (
    CONSTANTS,
    LETTERS,
    below,
    constants_dict,
    draw_event,
    event_dict,
    two_rules,
)
from scenarios.strategies import replies as replies_strategy
from scenarios.strategies import texts as texts_strategy


def split_seeds(drawn: bytes) -> list[int]:
    """One seed per event, from 4 drawn bytes each."""
    return [int.from_bytes(drawn[k : k + 4], "big") for k in range(0, len(drawn) - 3, 4)]


AIMED = 8
"""One event in AIMED is aimed at two rules at once: SPEC 4.1 names the first
in its order, which an engine checking them otherwise misses."""

BOUNDS: dict[int, int] = {}
"""`below(n)`'s strategy (by identity; `below` makes each once) -> n."""

LARGEST = 1 << 20
"""No index the event draws asks for is this large."""


def bound(strategy: object) -> int:
    """The n of `below(n)`, for the strategy it returned."""
    while id(strategy) not in BOUNDS:
        known = len(BOUNDS)
        if known >= LARGEST:
            raise TypeError(f"not a strategy an event's draw asks for: {strategy!r}")
        for n in range(known + 1, 2 * known + 65):
            BOUNDS[id(below(n))] = n
    return BOUNDS[id(strategy)]


class Chance:
    """`data.draw` as scenarios/strategies.py's event draws ask it (an index
    `below(n)`, `texts(NODE)`, `replies(NODE)`), answered from one seed:
    texts and replies of the same kinds and sizes as those strategies draw."""

    def __init__(self, seed: int, node: int) -> None:
        self.random = Random(seed)
        self.node = node
        self.texts = texts_strategy(node)
        self.replies = replies_strategy(node)

    def draw(self, strategy: st.SearchStrategy[Any]) -> Any:
        if strategy is self.texts:
            return self.text()
        if strategy is self.replies:
            return self.reply_list()
        return self.random.randrange(bound(strategy))

    def sized(self, low: int, high: int, positions: int) -> str:
        """A sized text (scenarios/format.py) of `low` to `high` bytes."""
        chance = self.random
        return scenario_format.sized_text(chance.randint(low, high), chance.randrange(positions))

    def text(self) -> str:
        """A message text: tiny, of every kind of character, or sized up to six times NODE."""
        chance = self.random
        if chance.randrange(2):
            return self.sized(0, 6 * self.node, 61)
        return "".join(chance.choices(LETTERS, k=chance.randint(0, 12)))

    def reply_list(self) -> tuple[str, ...]:
        """What a call got: 1 to 7 replies fitting, over-long, empty or blank;
        or 2 to 4 over-long replies of one size."""
        chance, node = self.random, self.node
        if chance.randrange(2):
            size, first = chance.randint(node + 1, 3 * node), chance.randrange(41)
            return tuple(
                scenario_format.sized_text(size, first + k) for k in range(chance.randint(2, 4))
            )
        return tuple(
            self.sized(1, 3 * node, 41) if chance.randrange(2) else chance.choice(("", " ", " \n"))
            for _ in range(chance.randint(1, 7))
        )


MOST_NODE = 2**16
"""The largest NODE a history is drawn with: its texts run to six times
NODE, so a far larger one (an engine that takes nothing under 1e15) would
fill memory; limits that leave only larger ones are said to (`fuzz`)."""


def fitted(constants: Constants, accepted: Limits) -> Constants | None:
    """`constants` with each one the engine limits moved to the nearest value
    it accepts; None when they still lie outside (limits that name a
    constant moved later, or contradict), break SPEC 7's own bounds, or
    NODE is over `MOST_NODE`."""
    moved = accepted.fit(constants_dict(constants))
    if accepted.broken(moved) is not None or moved["node"] > MOST_NODE:
        return None
    try:
        return Constants(**moved)  # type: ignore[arg-type]
    except ValueError:
        return None


def accepted_constants(accepted: Limits) -> st.SearchStrategy[Constants]:
    """The constants of a history (scenarios/strategies.py CONSTANTS) for an
    engine that accepts `accepted`: each drawn one `fitted`; one that cannot
    be is left out, and Hypothesis draws another."""
    if accepted == NONE:
        return CONSTANTS
    return CONSTANTS.map(lambda c: fitted(c, accepted)).filter(lambda c: c is not None)  # type: ignore[return-value]


def drawn(
    constants: Constants, seeds: list[int], profile: Profile, lacks: tuple[Capability, ...] = ()
) -> tuple[scenario_format.Scenario, list[Exchange] | None]:
    """The history of `seeds` under `constants` and `profile`, for an engine
    that lacks `lacks`, as a scenario, and the exchanges the model answers it
    with (None under `calls: self`, where the bridge holds some outcomes
    back, or for an engine given lines for replies: bridge/wire/stream.py
    `from_model` replays it then). A start is never drawn under `calls:
    self`, nor an event an engine without it is not sent."""
    scenario = scenario_format.Scenario(constants_dict(constants), [], "bridge fuzz")
    model = ModelEngine(profile)
    model.start(scenario)
    exchanges = []
    for seed in seeds:
        chance = Chance(seed, constants.node)
        aimed = chance.draw(below(AIMED)) == 0
        event = two_rules(chance, model.state) if aimed else draw_event(chance, model.state)  # type: ignore[arg-type]
        if profile.self_calls and isinstance(event, Start):
            continue
        written = event_dict(event)
        if withheld(lacks, written) is not None:
            continue
        line = wire(written, len(scenario.events))
        scenario.events.append(written)
        exchanges.append(Exchange(line, line["at"], model.answer(line)))
    exchanges.append(Exchange(DETAIL_REQUEST, None, model.answer(DETAIL_REQUEST)))
    return scenario, None if profile.self_calls or gives_lines(lacks) else exchanges
