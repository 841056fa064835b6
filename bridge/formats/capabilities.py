"""Engine capabilities as the protocol declares them (bridge/PROTOCOL.md,
"Capabilities"; SPEC 10): the optional parts of SPEC an engine implements,
named here once with the answer fields each owns, the events it concerns,
and what the bridge does for an engine without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WITHHELD = "not sent"
"""The bridge does not send the capability's events, to the engine nor to the model."""
GIVEN = "sent as given lines"
"""An `end` with replies is sent as an `end` with the line the model chose."""
IGNORED = "sent, fields not compared"
"""The events are sent; the fields the capability owns are not compared."""


@dataclass(frozen=True)
class Capability:
    """An optional part of SPEC an engine may lack."""

    name: str
    spec: str
    """The SPEC section that defines it."""
    meaning: str
    fields: tuple[str, ...]
    """The answer fields it owns: never compared for an engine without it."""
    events: tuple[str, ...]
    """The events it concerns (empty: every answer holds one of its fields)."""
    handling: str
    """What the bridge does with those events for an engine without it."""
    families: tuple[str, ...] = ()
    """Scenario families made to test only this part (the header's
    `notes.family`; `refused_RULE` for the refused family's scenarios of a
    rule): SKIPPED for an engine without it."""
    implies: tuple[str, ...] = ()
    """Capabilities an engine without this one lacks too."""


CAPABILITIES = (
    Capability(
        "settle_timeout",
        "SPEC 4",
        "a waiting turn gives up after SETTLE_TIMEOUT (the `timeout` event)",
        (),
        ("timeout",),
        WITHHELD,
        ("refused_timeout_needs_wait",),
        ("timed_out_render",),
    ),
    Capability(
        "timed_out_render",
        "SPEC 4",
        "a turn that timed out reads the timed-out render",
        ("render_timed_out_crc", "render_timed_out"),
        ("timeout",),
        IGNORED,
    ),
    Capability(
        "zoom",
        "SPEC 3.5",
        "the `zoom(id, n)` tool",
        ("zoom",),
        ("zoom",),
        WITHHELD,
        ("zoom", "refused_zoom"),
    ),
    Capability(
        "compaction_view",
        "SPEC 3.4",
        "the compaction view and the contexts rendered from it",
        ("cmerges", "cview_digest", "cview", "contexts_crc", "contexts"),
        (),
        IGNORED,
    ),
    Capability(
        "queue_waiting",
        "SPEC 4",
        "the candidates as if a turn began to wait now",
        ("queue_waiting",),
        (),
        IGNORED,
    ),
    Capability(
        "replies",
        "SPEC 5",
        "choosing a call's line from its replies",
        (),
        ("end",),
        GIVEN,
        ("chooser",),
    ),
)
"""Every capability; an engine that declares none of them lacks them all."""

BY_NAME = {capability.name: capability for capability in CAPABILITIES}
ALL = frozenset(BY_NAME)


class CapabilityError(ValueError):
    """A capability list that is not one: not a list, or an unknown name."""


def parse(given: Any, where: str) -> frozenset[str]:
    """The capabilities a JSON array names. CapabilityError names `where`
    and the problem."""
    if not isinstance(given, list) or not all(isinstance(name, str) for name in given):
        raise CapabilityError(f"{where}: capabilities are a list of names, not {given!r:.100}")
    unknown = sorted(set(given) - ALL)
    if unknown:
        known = ", ".join(sorted(ALL))
        raise CapabilityError(f"{where}: unknown capability {unknown[0]!r:.100} (known: {known})")
    return frozenset(given)


def from_text(text: str, where: str) -> frozenset[str]:
    """The capabilities `NAME,NAME` names (`--capabilities`); an empty text names none."""
    return parse([name.strip() for name in text.split(",") if name.strip()], where)


def lacking(held: frozenset[str]) -> tuple[Capability, ...]:
    """The capabilities an engine holding `held` lacks, with the ones they
    imply, in the order of CAPABILITIES."""
    out = ALL - held
    for name in ALL - held:
        out |= set(BY_NAME[name].implies)
    return tuple(c for c in CAPABILITIES if c.name in out)


def ignored_fields(lacks: tuple[Capability, ...]) -> dict[str, str]:
    """Each answer field not compared, and the capability that owns it."""
    return {name: c.name for c in lacks for name in c.fields}


def withheld(lacks: tuple[Capability, ...], event: dict[str, Any]) -> str | None:
    """The capability for which an event is not sent, if any."""
    kind = event["event"]
    return next((c.name for c in lacks if c.handling == WITHHELD and kind in c.events), None)


def gives_lines(lacks: tuple[Capability, ...]) -> bool:
    """Whether `end` events with replies are sent with the model's chosen line."""
    return any(c.handling == GIVEN for c in lacks)


def only_tests(lacks: tuple[Capability, ...], notes: dict[str, Any]) -> Capability | None:
    """The lacking capability a scenario was made to test alone, if any."""
    family = notes.get("family")
    if family == "refused":
        family = f"refused_{notes.get('rule')}"
    return next((c for c in lacks if family in c.families), None)


def described(held: frozenset[str]) -> str:
    """How a report says what an engine implements."""
    lacks = lacking(held)
    if not lacks:
        return ""
    return "not implemented: " + ", ".join(c.name for c in lacks)
