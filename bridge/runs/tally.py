"""What a corpus run says at its end, and its exit code: the outcomes
counted against the known-failures list, in plain words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bridge.checking.verdict import Verdict, listed, outcome


def counted(number: int, noun: str) -> str:
    """`1 scenario`, `2 scenarios`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass(frozen=True)
class Tally:
    """A corpus run's outcomes, counted."""

    total: int
    counts: dict[str, int]

    @classmethod
    def of(cls, verdicts: list[Verdict], known: Mapping[str, str]) -> Tally:
        outcomes = [outcome(v, known) for v in verdicts]
        return cls(len(verdicts), {o: outcomes.count(o) for o in dict.fromkeys(outcomes)})

    def code(self) -> int:
        """0 agree (or fail as listed), 1 a divergence or a listed scenario
        that passes, 2 a fault, bad input or the bridge failing."""
        if any(self.counts.get(o) for o in ("FAULT", "BAD", "ERROR")):
            return 2
        if self.counts.get("FAIL") or self.counts.get("UNEXPECTED PASS"):
            return 1
        return 0

    def summary(self, engine: str, profile: str, causes: int = 0) -> str:
        """The last line of a run: what happened to how many scenarios, and
        of how many causes its FAILs are (bridge/checking/causes.py)."""
        agreed = self.counts.get("ok", 0)
        as_listed = self.counts.get("expected failure", 0)
        said = f" (engine {engine}{'; ' + profile if profile else ''})"
        if agreed == self.total:
            whole = (
                "THE ONE SCENARIO AGREES"
                if self.total == 1
                else f"ALL {self.total} SCENARIOS AGREE"
            )
            return whole + said
        if agreed + as_listed == self.total:
            agree = (
                "none agrees" if not agreed else f"{agreed} {'agrees' if agreed == 1 else 'agree'}"
            )
            fail = "fails" if as_listed == 1 else "fail"
            return (
                f"AS LISTED: of {counted(self.total, 'scenario')}, {agree} and "
                f"{as_listed} {fail} as the known failures say{said}"
            )
        parts = [
            f"{n} {o}" + (f" from {counted(causes, 'cause')}" if o == "FAIL" and causes else "")
            for o, n in self.counts.items()
        ]
        return f"{counted(self.total, 'scenario')}: {', '.join(parts)}{said}"


def still_known(verdicts: list[Verdict], known: Mapping[str, str] | None) -> dict[str, str]:
    """The known-failures list a run writes (`--write-known-failures`): each
    scenario that did not agree with the status it ended in, or, when a list
    was given, only those of it that still end as listed (a list only shrinks)."""
    kept: dict[str, str] = {}
    for verdict in verdicts:
        if verdict.status not in ("FAIL", "FAULT", "SKIPPED"):
            continue
        if known is None or listed(verdict, known) == verdict.status:
            kept[verdict.path.stem] = verdict.status
    return kept


def outside_lines(verdicts: list[Verdict]) -> list[str]:
    """What a run says once about the scenarios SKIPPED for lying outside
    the constants the engine accepts (bridge/PROTOCOL.md): a line per
    declaration (one, unless the engine changed it), with how many."""
    skipped = Counter(v.outside for v in verdicts if v.status == "SKIPPED" and v.outside)
    return [
        f"declared constants limits: {limits}: {counted(number, 'scenario')} skipped"
        for limits, number in skipped.items()
    ]
