"""What a replay compared, and what it did not and why: the events whose
answer was compared over the scenario's events, and for each capability the
engine lacks (bridge/formats/capabilities.py) the events not sent, the
events sent in another form and the answer fields not compared; and, for a
replay that went to the end, the events delivered under the engine's
profile (bridge/checking/delivery.py). Every report gives it; a corpus run
sums it, and so does `merge-reports` over a campaign's shards.

A run is green only when it compared something (README, exit codes): a
run that compared no event's answer (every scenario SKIPPED, say) exits 1
saying NOTHING COMPARED, and one that compared less of the events than
`--min-compared` asks exits 1 too (`Coverage.short`); every command that
checks an engine says the fraction on its last line (`compared_said`)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bridge.formats.capabilities import BY_NAME


def percent(part: int, whole: int) -> str:
    """A fraction as a report writes it: one decimal, never 100.0 unless whole."""
    if whole == 0 or part == whole:
        return "100 %"
    return f"{min(99.9, 100 * part / whole):.1f} %"


def truncated(fraction: float) -> str:
    """A fraction with four decimals, cut, never rounded up: a figure a run
    states can be given back as `--min-compared` and the same run meets it."""
    return f"{math.floor(fraction * 10_000) / 10_000:.4f}"


def floor_said(floor: float) -> str:
    """`--min-compared` as a report says it."""
    return f"--min-compared {floor:g}"


def plural(count: int, word: str) -> str:
    """`1 event`, `2 events`."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


@dataclass
class Coverage:
    """What one replay (or, summed, a run) compared."""

    events: int = 0
    """The scenario's events."""
    compared: int = 0
    """Events whose answer was compared."""
    lacking: tuple[str, ...] = ()
    """The capabilities the engine lacks, by name."""
    not_sent: Counter[str] = field(default_factory=Counter)
    """Per capability: events not sent."""
    given: Counter[str] = field(default_factory=Counter)
    """Per capability: events sent in another form (`replies`: a given line)."""
    answers: Counter[str] = field(default_factory=Counter)
    """Per capability: answers compared without some of their fields."""
    fields: Counter[str] = field(default_factory=Counter)
    """Per capability: field values not compared."""
    left_out: Counter[str] = field(default_factory=Counter)
    """Per capability: scenarios SKIPPED for it (made to test only it),
    said beside it when a replay counted it lacking (`lacking`)."""
    stopped: bool = False
    """Whether the replay stopped before its end (at a divergence)."""
    skipped: int = 0
    """Events of scenarios SKIPPED (summed in a run)."""
    owed: int = 0
    """Events the profile asks to deliver, in the replays that went to the
    end: the scenario's, but starts under `calls: self` and events not sent
    for a lacking capability."""
    delivered: int = 0
    """Of those, the events sent and answered as the scenario means."""
    ended: int = 0
    """Replays that went to the end (whose delivery is counted)."""
    adopted: int = 0
    """Of the events compared, those compared after an adoption (from the
    first on, bridge/checking/adopt.py): checked beyond a first divergence."""
    adoptions: Counter[str] = field(default_factory=Counter)
    """Per answer field: the answers whose difference in it was adopted."""

    def fraction(self) -> float:
        return self.compared / self.events if self.events else 1.0

    def adopted_fraction(self) -> float:
        return self.adopted / self.events if self.events else 0.0

    def delivered_fraction(self) -> float:
        return self.delivered / self.owed if self.owed else 1.0

    def nothing(self) -> bool:
        """Whether the run compared nothing: no event's answer, though there
        were events to compare, or, with none (the empty chat), no replay
        went to its end to compare even the final state."""
        return self.compared == 0 and (self.events > 0 or self.ended == 0)

    def short(self, floor: float) -> str | None:
        """Why a run that compared this is not green whatever its scenarios'
        outcomes (it compared nothing, or less of the events than `floor`),
        in words that start with the verdict; None when it compared enough."""
        if self.nothing():
            return f"NOTHING COMPARED: 0 of {plural(self.events, 'event')}"
        if self.fraction() < floor:
            return f"BELOW {floor_said(floor)}: compared {truncated(self.fraction())} of the events"
        return None

    def compared_said(self, floor: float) -> str:
        """The fraction compared as a run's last line states it beside the
        verdict, with the floor it was held to."""
        said = f"compared {truncated(self.fraction())} of the events"
        if self.adopted:
            said += f", {truncated(self.adopted_fraction())} after adoption"
        return said + (f", at least {floor:g} asked" if floor else "")

    def rest(self) -> int:
        """Events not compared for another reason than a lacking capability."""
        return self.events - self.compared - self.skipped - sum(self.not_sent.values())

    def __iadd__(self, other: Coverage) -> Coverage:
        self.events += other.events
        self.compared += other.compared
        self.lacking = tuple(dict.fromkeys(self.lacking + other.lacking))
        self.not_sent += other.not_sent
        self.given += other.given
        self.answers += other.answers
        self.fields += other.fields
        self.left_out += other.left_out
        self.stopped = self.stopped or other.stopped
        self.skipped += other.skipped
        self.owed += other.owed
        self.delivered += other.delivered
        self.ended += other.ended
        self.adopted += other.adopted
        self.adoptions += other.adoptions
        return self

    def said(self, name: str) -> str:
        """What was left out for one capability the engine lacks."""
        parts = []
        if self.not_sent[name]:
            parts.append(f"{plural(self.not_sent[name], 'event')} not sent")
        if self.given[name]:
            parts.append(f"{plural(self.given[name], 'end')} sent with the model's chosen line")
        if self.fields[name]:
            fields = plural(self.fields[name], "field")
            parts.append(f"{fields} not compared in {plural(self.answers[name], 'answer')}")
        if self.left_out[name]:
            parts.append(f"{plural(self.left_out[name], 'scenario')} skipped")
        return f"{name} ({', '.join(parts) or 'none here'})"

    def not_implemented(self) -> str:
        """`not implemented: ...`, or "" for an engine that lacks nothing."""
        if not self.lacking:
            return ""
        return "not implemented: " + "; ".join(self.said(name) for name in self.lacking)

    def delivery(self) -> str:
        """What was delivered under the profile, or why it was not counted."""
        if not self.ended:
            return "delivered under the profile: not counted (no replay went to the end)"
        out = (
            f"delivered {self.delivered:,} of {self.owed:,} events under the profile "
            f"({percent(self.delivered, self.owed)})"
        )
        if self.ended > 1 or self.stopped:
            out += f" in the {plural(self.ended, 'scenario')} replayed to the end"
        return out

    def summary(self) -> str:
        """One line: the fraction compared, and what was not compared and why."""
        share = f"{100 * self.fraction():.1f} %"
        out = [f"compared {self.compared:,} of {self.events:,} events ({share})"]
        if self.adopted:
            out.append(self.after_adoption())
        if self.skipped:
            out.append(f"{self.skipped:,} in SKIPPED scenarios")
        rest = self.rest()
        if rest:
            why = "the replay stopped early" if self.stopped else "never sent under the profile"
            out.append(f"{rest:,} not reached ({why})")
        if self.lacking:
            out.append(self.not_implemented())
        if self.events > self.skipped:
            out.append(self.delivery())
        return "; ".join(out)

    def after_adoption(self) -> str:
        """The events compared after an adoption, and what was adopted."""
        share = f"{100 * self.adopted_fraction():.1f} %"
        taken = ", ".join(f"{name} in {n:,}" for name, n in sorted(self.adoptions.items()))
        return f"{self.adopted:,} of them after adoption ({share}; adopted: {taken or 'none'})"

    def to_json(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "compared": self.compared,
            "fraction": round(self.fraction(), 6),
            "not_reached": self.rest(),
            "adoption": {
                "compared": self.adopted,
                "fraction": round(self.adopted_fraction(), 6),
                "fields": dict(sorted(self.adoptions.items())),
            },
            "stopped": self.stopped,
            "skipped": self.skipped,
            "delivery": {
                "events": self.owed,
                "delivered": self.delivered,
                "fraction": round(self.delivered_fraction(), 6),
                "scenarios": self.ended,
            },
            "not_implemented": [
                {
                    "capability": name,
                    "spec": BY_NAME[name].spec,
                    "handling": BY_NAME[name].handling,
                    "events_not_sent": self.not_sent[name],
                    "events_given": self.given[name],
                    "answers": self.answers[name],
                    "fields_not_compared": self.fields[name],
                }
                for name in self.lacking
            ],
        }

    @classmethod
    def from_json(cls, given: dict[str, Any]) -> Coverage:
        """A coverage as `to_json` wrote it (a report read again to be summed)."""
        by = given["not_implemented"]
        lacking = tuple(item["capability"] for item in by)
        unknown = [name for name in lacking if name not in BY_NAME]
        if unknown:
            raise KeyError(f"no capability {unknown[0]!r}")
        delivery = given["delivery"]
        adoption = given.get("adoption", {})
        return cls(
            events=given["events"],
            compared=given["compared"],
            lacking=lacking,
            not_sent=Counter({i["capability"]: i["events_not_sent"] for i in by}),
            given=Counter({i["capability"]: i["events_given"] for i in by}),
            answers=Counter({i["capability"]: i["answers"] for i in by}),
            fields=Counter({i["capability"]: i["fields_not_compared"] for i in by}),
            stopped=given["stopped"],
            skipped=given["skipped"],
            owed=delivery["events"],
            delivered=delivery["delivered"],
            ended=delivery["scenarios"],
            adopted=adoption.get("compared", 0),
            adoptions=Counter(adoption.get("fields", {})),
        )
