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

    def add(
        self,
        name: str,
        coverage: tuple[int, int],
        first: dict[str, Any] | None,
        after: dict[str, Any] | None,
    ) -> None:
        """One scenario of the cause: its name, its events and those
        compared after adoption, its first divergence and the one after
        adoption (as the JSON report gives them, bridge/checking/verdict.py)."""
        self.scenarios += 1
        self.events += coverage[0]
        self.compared += coverage[1]
        self.adopted += bool(first and first.get("adopted"))
        if after is not None:
            self.after.append(name)
            event = after.get("event") or {}
            self.fields[f"{after['field']}@{event.get('event', 'detail')}"] += 1

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
        for v in verdicts:
            counted = (v.coverage.events, v.coverage.adopted) if v.coverage else (0, 0)
            found.add(v.path.name, counted, v.divergence, v.after)
        out.append(found)
    return out


def beyond_json(causes: list[dict[str, Any]], cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`beyond` from a JSON report's causes and scenarios (merge-reports
    joins shards' reports: each shard's `beyond` covers its own scenarios)."""
    by_path = {case["path"]: case for case in cases}
    out = []
    for cause in causes:
        found = Beyond(cause["id"])
        for path in cause["scenarios"]:
            case = by_path.get(path)
            if case is None:
                continue
            coverage = case.get("coverage") or {}
            adopted = coverage.get("adoption", {}).get("compared", 0)
            counted = (coverage.get("events", 0), adopted)
            found.add(case["scenario"], counted, case.get("divergence"), case.get("after_adoption"))
        out.append(found.to_json())
    return out
