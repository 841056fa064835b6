"""What a run checked beyond the first divergence of each cause (issue 44):
under `--keep-going` a replay adopts an engine's value where that is sound
(bridge/checking/adopt.py) and goes on, so each cause's scenarios are
compared past the difference the cause names. Per cause, the events
compared after an adoption and the divergences met after one (real
differences in the rules, each marked so), as the text, JSON and JUnit
reports give them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bridge.checking.coverage import plural, truncated
from bridge.checking.verdict import Verdict


@dataclass
class Beyond:
    """One cause's scenarios past their first divergence."""

    cause: str
    scenarios: int = 0
    """The cause's scenarios."""
    adopted: int = 0
    """Of those, the ones whose first divergence the replay adopted."""
    events: int = 0
    """Their events."""
    compared: int = 0
    """Of those, the events compared after an adoption."""
    after: list[str] = field(default_factory=list)
    """The scenarios with a divergence after adoption."""
    fields: Counter[str] = field(default_factory=Counter)
    """Those divergences by field and event: `queue@message`."""

    def add(self, verdict: Verdict) -> None:
        self.scenarios += 1
        if verdict.coverage is not None:
            self.events += verdict.coverage.events
            self.compared += verdict.coverage.adopted
        if verdict.divergence is not None and verdict.divergence.get("adopted"):
            self.adopted += 1
        if verdict.after is not None:
            self.after.append(verdict.path.name)
            event = verdict.after.get("event") or {}
            self.fields[f"{verdict.after['field']}@{event.get('event', 'detail')}"] += 1

    def fraction(self) -> float:
        return self.compared / self.events if self.events else 0.0

    def said(self) -> str:
        """One line: what was checked past the cause, and what failed there."""
        if not self.adopted:
            return "checked beyond it: nothing (its first divergence cannot be adopted)"
        out = (
            f"checked beyond it: {truncated(self.fraction())} of its scenarios' events after "
            f"adoption ({plural(self.adopted, 'scenario')} of {self.scenarios} adopted)"
        )
        if self.after:
            kinds = ", ".join(f"{k} in {n}" for k, n in self.fields.most_common())
            out += f"; DIVERGENCE AFTER ADOPTION in {plural(len(self.after), 'scenario')}: {kinds}"
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "scenarios": self.scenarios,
            "adopted": self.adopted,
            "events": self.events,
            "compared_after_adoption": self.compared,
            "fraction": round(self.fraction(), 6),
            "after_adoption": list(self.after),
        }


def beyond(causes: Iterable[tuple[str, Iterable[Verdict]]]) -> list[Beyond]:
    """Each cause (its id and its scenarios' verdicts) checked past its first divergence."""
    out = []
    for cause, verdicts in causes:
        found = Beyond(cause)
        for verdict in verdicts:
            found.add(verdict)
        out.append(found)
    return out
