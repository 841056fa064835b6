"""The declared differences `diagnose` tries (bridge/runs/diagnose.py, issue
21): a change of one profile option (SPEC 10) or one capability taken away
(bridge/formats/capabilities.py), which of them to try at a divergence
first, and which cannot change a scenario's replay at all."""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from bridge.checking.compare import MISSING, Divergence
from bridge.formats.capabilities import ALL, BY_NAME, CAPABILITIES, Capability, lacking, only_tests
from bridge.formats.profile import SPEC
from bridge.wire.stream import changes as changes_sent
from model.profile import TYPES, Profile, from_options, options
from scenarios.format import Scenario

LACKS = "lacks"
"""The option of a change that takes a capability away (its value names it)."""


@dataclass(frozen=True, order=True)
class Change:
    """One declared difference tried: a profile option at a value (SPEC 10),
    or a capability the engine lacks (option `lacks`)."""

    option: str
    value: Any

    def said(self) -> str:
        return f"{self.option}: {json.dumps(self.value)}"

    @property
    def key(self) -> tuple[str, Any]:
        """What a proposal takes one value of: a profile option, or one capability."""
        return (self.option, self.value if self.option == LACKS else None)


@dataclass(frozen=True)
class Trial:
    """What the engine is checked under: a profile and the capabilities it holds."""

    profile: Profile
    held: frozenset[str] = ALL

    @property
    def lacks(self) -> tuple[Capability, ...]:
        return lacking(self.held)


def changes(base: Trial) -> list[Change]:
    """Every change of one option of `base`'s profile the option's type
    enumerates (a boolean flipped, each other string of an option that
    lists them), then each capability it holds taken away (those that
    take others with them last)."""
    now = options(base.profile)
    out: list[Change] = []
    for name, kind in TYPES.items():
        if kind is bool:
            out.append(Change(name, not now[name]))
        elif isinstance(kind, tuple):
            out += [Change(name, value) for value in kind if value != now[name]]
    held = sorted((c for c in CAPABILITIES if c.name in base.held), key=lambda c: len(c.implies))
    return out + [Change(LACKS, c.name) for c in held]


def applied(base: Trial, made: tuple[Change, ...]) -> Trial | None:
    """`base` with the changes made; None when they make no profile."""
    told = {c.option: c.value for c in made if c.option != LACKS}
    try:
        profile = from_options({**options(base.profile), **told})
    except ValueError:
        return None
    return Trial(profile, base.held - {c.value for c in made if c.option == LACKS})


def owning(change: Change, found: Divergence) -> bool:
    """Whether a change takes away the capability owning a field the engine left out."""
    return (
        change.option == LACKS
        and found.found is MISSING
        and found.field in BY_NAME[change.value].fields
    )


def at_its_events(change: Change, found: Divergence) -> bool:
    """Whether a change takes away a capability that changes what is sent, at one of its events."""
    if change.option != LACKS or BY_NAME[change.value].fields:
        return False
    return (found.event or {}).get("event") in BY_NAME[change.value].events


CONCERNS = {
    "end": ("empty_reply", "not_shorter"),
    "fail": ("retry", "failure_cap", "held_takes_job"),
    "message": ("retry", "failure_cap", "held_takes_job", "trim_lines", "kinds"),
    "wait": ("resume", "ahead_in_wait"),
    "settle": ("resume",),
}
"""The profile options tried first at a divergence at each kind of event
(SPEC 10 says where each applies); the others follow, in the same turn."""


def tiers(
    trial: Trial, taken: set[tuple[str, Any]], found: Divergence
) -> list[list[tuple[Change, ...]]]:
    """The changes to try at a divergence, in turn (see the module's
    docstring): none of an option or capability already changed."""
    left = [c for c in changes(trial) if c.key not in taken]
    first = CONCERNS.get((found.event or {}).get("event", ""), ())
    profile = sorted(
        ((c,) for c in left if c.option != LACKS), key=lambda made: made[0].option not in first
    )
    pairs = [a + b for a, b in combinations(profile, 2) if a[0].option != b[0].option]
    return [
        [(c,) for c in left if owning(c, found)],
        profile,
        [(c,) for c in left if at_its_events(c, found)],
        pairs,
    ]


CHOOSER = ("empty_reply", "not_shorter")
"""The profile options only the line chooser reads: it chooses from an
`end` event's replies, and from nothing else (SPEC 5, 10)."""
FAILURE = ("retry", "failure_cap", "held_takes_job")
"""The profile options only a failed call makes matter: they say when a
held node starts again, what its last failure builds, and whether it takes
a JOBS slot (SPEC 4, 10); with no failure no node is held."""


def can_fail(scenario: Scenario, profile: Profile) -> bool:
    """Whether a call can fail in the scenario: a `fail` event, replies
    (the chooser may fail the call), or a line `trim_lines` may empty."""
    return any(
        event["event"] == "fail"
        or "replies" in event
        or (profile.trim_lines and event["event"] == "end")
        for event in scenario.events
    )


def inert(scenario: Scenario, extra: tuple[Change, ...] | None, profile: Profile = SPEC) -> bool:
    """Whether the changes `extra` (to reach `profile`) cannot change a
    replay of the scenario: capabilities taken away only leave fields
    uncompared, and no event it has is withheld or sent otherwise; a
    chooser's option changed, and it has no replies; an option about
    failed calls, and no call can fail. None: it must be replayed anyway."""
    if extra is None:
        return False
    options_changed = {c.option for c in extra} - {LACKS}
    if options_changed - set(CHOOSER) - set(FAILURE):
        return False
    if options_changed & set(CHOOSER) and any("replies" in e for e in scenario.events):
        return False
    if options_changed & set(FAILURE) and can_fail(scenario, profile):
        return False
    lacks = lacking(ALL - {c.value for c in extra if c.option == LACKS})
    return not changes_sent(scenario, lacks) and only_tests(lacks, scenario.notes) is None


def stand_in(scenario: Scenario, profile: Profile, kept: list[Profile]) -> Profile:
    """`profile`, or one of `kept` that answers every event of the scenario
    as it does: it differs from `profile` only in options `inert` says the
    scenario cannot make matter (a replay under it reads that profile's
    transcript instead of stepping the model)."""
    if profile in kept:
        return profile
    wanted = options(profile)
    for other in kept:
        said = options(other)
        changed = tuple(Change(name, said[name]) for name in TYPES if said[name] != wanted[name])
        if inert(scenario, changed, other):
            return other
    return profile
