"""What a scenario exists for, and whether a replay tested it: what was not
tested is never `ok`.

A scenario's header says what it was made for (`notes.family`, with
`notes.rule` for the refused family and `notes.rules` for `both`;
scenarios/README.md): a `refused` scenario exists for its events marked
refused by its rule, a `both` scenario for its events marked with the first
of its two rules (the one SPEC 4.1 names), a `zoom` scenario for its zooms
and a `chooser` scenario for its ends with replies. Other families (the
long chats, random) exist for all their events, which the fraction compared
and delivered already counts.

A replay that went to its end tested such an event when it was sent and,
for a marked refusal, the model refused it under the engine's profile by
the rule its mark names, so that the engine's refusal was compared with
that rule's. Where none of them was tested, what the scenario exists for
was not, and it is SKIPPED with the reason, never passed: under `calls:
self` a `start` is never sent (the engine makes its own, and they are
checked against the queue in `started`), so the scenarios of the start
rules are SKIPPED; a rule a profile switches off (`need_first: false`)
leaves its refusals accepted. Where some were tested and others not (under
`trim_lines` a line of spaces fails its call rather than being refused as
`line_fits`), the scenario's verdict stands and a note says which were not.
Outcomes marked `end_needs_running` or `fail_needs_running` are sent under
`calls: self` at a moment their call does not run (bridge/wire/stream.py),
so that rule is checked there (bridge/PROTOCOL.md, "Engines that start
their own calls").
"""

from __future__ import annotations

from typing import Any

from bridge.checking.compare import Result
from scenarios.format import Scenario

SHOWN = 10
"""How many positions a reason lists before `...`."""


def purpose(scenario: Scenario) -> tuple[str, dict[int, str | None]]:
    """What the scenario exists for, in words, and the positions of those
    events, each with the rule its refusal mark names (None for an event
    that is not a refusal); no positions for a scenario of every event."""
    notes: dict[str, Any] = scenario.notes
    family = notes.get("family")
    if family in ("refused", "both"):
        rules = notes.get("rules") if family == "both" else [notes.get("rule")]
        rule = rules[0] if isinstance(rules, list) and rules else None
        marked = {
            p: str(rule) for p, event in enumerate(scenario.events) if event.get("refused") == rule
        }
        return f"refusals by {rule}", marked
    if family == "zoom":
        zooms = {p: None for p, event in enumerate(scenario.events) if event["event"] == "zoom"}
        return "zooms", zooms
    if family == "chooser":
        ends = {p: None for p, event in enumerate(scenario.events) if "replies" in event}
        return "ends with replies", ends
    return "", {}


def listed(positions: list[int]) -> str:
    shown = ", ".join(str(p) for p in positions[:SHOWN])
    return shown + (" ..." if len(positions) > SHOWN else "")


def untested(scenario: Scenario, result: Result) -> tuple[bool, str] | None:
    """What of the scenario's purpose (`purpose`) a replay that went to its
    end did not test, or None when it tested all of it: whether it tested
    none of it (the scenario is then SKIPPED), and in words what was not."""
    what, wanted = purpose(scenario)
    if result.coverage.stopped:
        return None  # past a divergence nothing is known
    unsent = [p for p in wanted if p not in result.sent]
    other = [
        p
        for p, rule in wanted.items()
        if rule is not None and p in result.sent and result.refused.get(p) != rule
    ]
    if not unsent and not other:
        return None
    family = scenario.notes.get("family")
    said = []
    if unsent:
        said.append(f"{len(unsent)} never sent under the profile (events {listed(unsent)})")
    if other:
        said.append(
            f"{len(other)} sent but not refused so under the profile (events {listed(other)})"
        )
    none = len(unsent) + len(other) == len(wanted)
    return none, (
        f"{'not tested' if none else 'not all tested'}: it exists for its {len(wanted)} "
        f"{what} (family {family}), and " + " and ".join(said)
    )


def skipped(scenario: Scenario, result: Result) -> str | None:
    """Why a replay that went to its end tested none of what the scenario
    exists for (it is SKIPPED, never passed), or None."""
    found = untested(scenario, result)
    return found[1] if found is not None and found[0] else None


def notes(scenario: Scenario, result: Result) -> list[str]:
    """A note on what of the scenario's purpose a replay did not test, when
    it tested some of it."""
    found = untested(scenario, result)
    return [found[1]] if found is not None and not found[0] else []
