"""What a corpus run says at its end, and its exit code: the outcomes
counted against the known-failures list, in plain words, and the fraction
of the events compared, held to `--min-compared`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bridge.checking.coverage import Coverage, truncated
from bridge.checking.verdict import Verdict, listed, outcome

OUTCOMES = (
    "ok",
    "expected failure",
    "FAIL",
    "UNEXPECTED PASS",
    "SKIPPED",
    "FAULT",
    "BAD",
    "ERROR",
)
"""Every outcome a run counts, in the order its last line names them."""


def counted(number: int, noun: str) -> str:
    """`1 scenario`, `2 scenarios`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass(frozen=True)
class Tally:
    """A corpus run's outcomes, counted, with what it compared: green only
    when no scenario failed and it compared enough (bridge/checking/coverage.py
    `Coverage.short`)."""

    total: int
    counts: dict[str, int]
    coverage: Coverage
    floor: float = 0.0
    """`--min-compared`: the fraction of the events the run must compare."""
    shard: bool = False
    """A shard of a campaign (`--shard K/N`): what it compared is judged on
    the shards' merged report (`merge-reports`), whose fraction is the run's."""
    skipped_as_listed: int = 0
    """Of the expected failures, those SKIPPED (an engine lacking what they
    need), not failed."""

    @classmethod
    def of(
        cls,
        verdicts: list[Verdict],
        known: Mapping[str, str],
        coverage: Coverage,
        floor: float = 0.0,
        shard: bool = False,
    ) -> Tally:
        outcomes = [outcome(v, known) for v in verdicts]
        counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
        skipped = sum(
            o == "expected failure" and v.status == "SKIPPED"
            for v, o in zip(verdicts, outcomes, strict=True)
        )
        return cls(len(verdicts), counts, coverage, floor, shard, skipped)

    def faulted(self) -> bool:
        """Whether a scenario ended in an engine fault, bad input or a runner error."""
        return any(self.counts.get(o) for o in ("FAULT", "BAD", "ERROR"))

    def short(self) -> str | None:
        """Why the run is not green for what it compared, or None (also for a
        run that faulted: the fault is its verdict, and why it compared little)."""
        if self.shard or self.faulted():
            return None
        return self.coverage.short(self.floor)

    def code(self) -> int:
        """0 agree (or fail as listed) having compared enough, 1 a divergence,
        a listed scenario that passes, or too little compared (nothing, or
        below the floor), 2 a fault, bad input or the bridge failing."""
        if self.faulted():
            return 2
        if self.counts.get("FAIL") or self.counts.get("UNEXPECTED PASS") or self.short():
            return 1
        return 0

    def outcomes(self, causes: int = 0, twice: int = 0) -> str:
        """What happened to how many scenarios, in words, and of how many
        causes its FAILs are (bridge/checking/causes.py): each FAIL counted
        once, `twice` of them showing a second cause's bug too."""
        agreed = self.counts.get("ok", 0)
        as_listed = self.counts.get("expected failure", 0)
        if agreed == self.total:
            return (
                "THE ONE SCENARIO AGREES"
                if self.total == 1
                else f"ALL {self.total} SCENARIOS AGREE"
            )
        if agreed + as_listed == self.total:
            agree = (
                "none agrees" if not agreed else f"{agreed} {'agrees' if agreed == 1 else 'agree'}"
            )
            failed, skipped = as_listed - self.skipped_as_listed, self.skipped_as_listed
            listed = [
                *([f"{failed} {'fails' if failed == 1 else 'fail'}"] if failed else []),
                *([f"{skipped} {'is' if skipped == 1 else 'are'} skipped"] if skipped else []),
            ]
            return (
                f"AS LISTED: of {counted(self.total, 'scenario')}, {agree} and "
                f"{' and '.join(listed)} as the known failures say"
            )
        shared = f" ({twice} showing two causes' bugs, counted once)" if twice else ""
        parts = [
            f"{self.counts[o]} {o}"
            + (f" from {counted(causes, 'cause')}{shared}" if o == "FAIL" and causes else "")
            for o in OUTCOMES
            if self.counts.get(o)
        ]
        return f"{counted(self.total, 'scenario')}: {', '.join(parts)}"

    def summary(self, engine: str, profile: str, causes: int = 0, twice: int = 0) -> str:
        """The last line of a run: the verdict, what happened to how many
        scenarios (and of how many causes its FAILs are, `outcomes`), and the
        fraction of the events compared."""
        said = f" (engine {engine}{'; ' + profile if profile else ''})"
        short = self.short()
        if short is not None:
            return f"{short}; {self.outcomes(causes, twice)}{said}"
        if self.shard:
            fraction = truncated(self.coverage.fraction())
            compared = (
                f"compared {fraction} of this shard's events (merge-reports judges the whole run's)"
            )
        else:
            compared = self.coverage.compared_said(self.floor)
        return f"{self.outcomes(causes, twice)}; {compared}{said}"


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
