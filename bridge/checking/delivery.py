"""How much of a scenario reaches an engine under its profile: the events
sent and answered as the scenario means them (SPEC 10; scenarios/README.md,
"Events under a profile").

An event is delivered when the bridge sends it and the model answers it as
the scenario marks it: accepted, or refused when it carries a `refused`
mark, or refused by the rule a profile adds: a message of a kind the
profile does not take (SPEC 10 `kinds`) is sent, the model refuses it by
rule `kind`, and the engine must refuse it too: that refusal is what the
option asks to check. Under `calls: self` the scenario's starts are the
engine's to make; under `resume: self` a settle or timeout relative to the
state that finds no turn waiting would end a turn that went on by itself,
and is not sent; an event not sent for a capability the engine lacks is
counted there (bridge/checking/coverage.py): none of these is owed. An event is not
delivered when it is never sent (an outcome whose call never started, a
relative event with no call to act on) or when the model refuses it
unmarked (it named a node the profile does not offer). Only a replay that
went to the end is counted: past a divergence nothing is known.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from bridge.checking.compare import Result
from model.profile import Profile
from scenarios.format import Scenario, is_relative

PROFILE_RULES = frozenset({"kind"})
"""The rules (SPEC 4.1) by which the model refuses what a scenario does
not mark only because of the profile: `kind`, for a message of a kind the
profile's `kinds` leaves out (SPEC 10; under SPEC's own kinds only a kind
that is none of SPEC's breaks it, and the corpus marks those)."""


def turn_end(event: dict[str, Any]) -> bool:
    """Whether the event is a settle or timeout relative to the state: one
    that finds no turn waiting is not sent (bridge/wire/stream.py `UNSENT`).
    Under SPEC 10 `resume: self` that is the engine's turn having gone on by
    itself on a settled view (SPEC 4), as the engine starts its own calls
    under `calls: self`: not owed. Under any other profile only a settle or
    timeout ends a wait, so one not sent is counted."""
    return event["event"] in ("settle", "timeout") and is_relative(event)


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


def delivery(
    scenario: Scenario,
    profile: Profile,
    sent: Collection[int],
    refused: Mapping[int, str],
    withheld: Collection[int] = (),
) -> Delivery:
    """The delivery of a scenario replayed to the end: `sent` the positions
    sent, `refused` those the model refused with the rule it named,
    `withheld` those not sent for a capability the engine lacks."""
    owed = [
        p
        for p, e in enumerate(scenario.events)
        if not (profile.self_calls and e["event"] == "start")
        and p not in withheld
        and not (profile.self_resume and p not in sent and turn_end(e))
    ]
    return Delivery(
        len(owed),
        tuple(p for p in owed if p not in sent),
        tuple(
            sorted(
                p
                for p, rule in refused.items()
                if "refused" not in scenario.events[p] and rule not in PROFILE_RULES
            )
        ),
    )


def _listed(positions: tuple[int, ...]) -> str:
    return ", ".join(str(p) for p in positions[:10]) + (" ..." if len(positions) > 10 else "")


def notes(found: Delivery) -> list[str]:
    """Which events of a scenario were not delivered, when any (the fraction
    is the coverage's to say)."""
    out = []
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


def add_delivery(scenario: Scenario, profile: Profile, result: Result) -> list[str]:
    """Add a replay's delivery to its coverage, when it went to the end; the
    notes on what was not delivered."""
    if result.coverage.stopped:
        return []
    found = delivery(scenario, profile, result.sent, result.refused, result.withheld)
    result.coverage.owed += found.events
    result.coverage.delivered += found.delivered
    result.coverage.ended += 1
    return notes(found)
