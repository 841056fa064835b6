"""How much of a scenario reaches an engine under its profile: the events
sent and answered as the scenario means them (SPEC 10; scenarios/README.md,
"Events under a profile").

An event is delivered when the bridge sends it and the model answers it as
the scenario marks it: accepted, or refused when it carries a `refused`
mark. Under `calls: self` the scenario's starts are the engine's to make,
so they are not counted. An event is not delivered when it is never sent
(an outcome whose call never started, a relative event with no call to act
on) or when the model refuses it unmarked (it named a node the profile
does not offer).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from model.profile import Profile
from scenarios.format import Scenario


@dataclass(frozen=True)
class Delivery:
    """The events of one scenario the profile asks to deliver, and those it did not."""

    events: int
    unsent: tuple[int, ...]
    """Positions never sent."""
    refused: tuple[int, ...]
    """Positions sent and refused by the model, though the scenario does not mark them."""

    @property
    def delivered(self) -> int:
        return self.events - len(self.unsent) - len(self.refused)

    def __add__(self, other: Delivery) -> Delivery:
        """Two scenarios' counts summed (positions are kept only for one scenario)."""
        return Delivery(
            self.events + other.events, self.unsent + other.unsent, self.refused + other.refused
        )


def delivery(
    scenario: Scenario, profile: Profile, sent: Iterable[int], refused: Iterable[int]
) -> Delivery:
    """The delivery of a scenario replayed to the end: `sent` the positions
    sent, `refused` those the model refused."""
    counted = [
        p
        for p, e in enumerate(scenario.events)
        if not (profile.self_calls and e["event"] == "start")
    ]
    got = set(sent)
    return Delivery(
        len(counted),
        tuple(p for p in counted if p not in got),
        tuple(sorted(p for p in set(refused) if "refused" not in scenario.events[p])),
    )


def percent(part: int, whole: int) -> str:
    """A fraction as a report writes it: one decimal, never 100.0 unless whole."""
    if whole == 0 or part == whole:
        return "100 %"
    return f"{min(99.9, 100 * part / whole):.1f} %"


def _listed(positions: tuple[int, ...]) -> str:
    return ", ".join(str(p) for p in positions[:10]) + (" ..." if len(positions) > 10 else "")


def notes(found: Delivery) -> list[str]:
    """What a report says of a scenario's delivery: the fraction, and which
    events were not delivered, when any."""
    if found.delivered == found.events:
        return []
    out = [
        f"{found.delivered} of {found.events} events delivered under the profile "
        f"({percent(found.delivered, found.events)})"
    ]
    if found.unsent:
        out.append(
            f"{len(found.unsent)} events never sent (an outcome whose call never started, "
            f"or a relative event with no call to act on): events {_listed(found.unsent)}"
        )
    if found.refused:
        out.append(
            f"{len(found.refused)} events the model refuses under the profile though the "
            f"scenario does not mark them: events {_listed(found.refused)}"
        )
    return out
