"""`python -m tests.scenarios.delivery`: how much of the corpus each engine
profile delivers (issue 21, "A corpus that follows the profile").

For each profile of `scenarios/profiles/`, each option of SPEC 10 alone at
a value other than SPEC's, a profile like a real Rust engine's (every
driven option off SPEC at once), every option off SPEC at once (ALL_OPTIONS)
and the profiles of the example engines (ENGINES), the corpus is replayed through the model
under that profile and counted as the bridge counts a run
(bridge/checking/delivery.py): events never sent, events the model refuses
though the scenario does not mark them, and outcomes (`end`, `fail`) never
sent. Prints one row per profile and exits 1 when any profile delivers less
than FLOOR of the events.

    python -m tests.scenarios.delivery [--corpus DIR] [--only GLOB] [--head N]
                                       [--engines] [NAME ...]

`--engines` measures the example engines' profiles (ENGINES), `make bench`
row 16.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridge.checking.changes import Trial, between, inert
from bridge.checking.coverage import percent
from bridge.checking.delivery import Delivery, delivery
from bridge.formats.profile import SPEC
from bridge.wire.stream import Exchange, from_model
from model.constants import KINDS
from model.profile import TYPES, Profile, from_options, options
from scenarios.format import Scenario, read
from tests.bridge.engines import differing, distant

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "scenarios" / "corpus"
PROFILES = ROOT / "scenarios" / "profiles"

FLOOR = 0.95
"""The least fraction of the corpus's events any profile must deliver."""


def other_value(name: str, spec: Any) -> Any:
    """A value of option `name` other than SPEC's `spec`: the other boolean,
    another of the strings it may be, every kind with a word of its own, a
    tolerance of 1.25 (elephant-memory's) or an ellipsis `…`."""
    kind = TYPES[name]
    if isinstance(kind, tuple):
        return next(value for value in kind if value != spec)
    if kind is bool:
        return not spec
    if kind is float:
        return 1.25 if spec == 1 else 1
    if kind is str:
        return "…" if spec == "" else ""
    if kind is dict:
        return {k: f"{k}x" for k in KINDS}
    if kind is list:
        return list(KINDS[:4])
    raise ValueError(f"no other value known for option {name!r}")


def profiles() -> dict[str, Profile]:
    """Every profile measured, by name."""
    spec = options(Profile())
    out: dict[str, Profile] = {}
    for name, value in spec.items():
        other = other_value(name, value)
        said = (
            "a word per kind" if isinstance(other, dict) else json.dumps(other, ensure_ascii=False)
        )
        out[f"{name}={said}"] = from_options({name: other})
    out["rust-like"] = from_options(
        {
            "trim_lines": True,
            "kind_words": {"unii": "talk", "user": "you"},
            "need_first": False,
            "failure_cap": "none",
            "ahead_in_wait": False,
        }
    )
    out[ALL_OPTIONS] = from_options(differing.PROFILE)
    out["distant"] = from_options(distant.PROFILE)
    for path in sorted(PROFILES.glob("*.json")):
        out[path.stem] = from_options(json.loads(path.read_text(encoding="utf-8")))
    return out


ALL_OPTIONS = "all-options"
"""Every SPEC 10 option off SPEC at once: the profile of the differing
example engine (tests/bridge/engines/differing.py). Where an option has
several such values it takes the one measured to deliver least (corpus
version 11, the other options as they are): `kinds` only `user` (98.73 %;
four kinds 98.89 %), `trim_set` javascript (98.62 %; ascii 98.73 %),
`tolerance` 1.25 (98.73 %; 4 98.74 %); `ellipsis` (`…` or `.`) and
`kind_words` change no event sent. In all 98.62 %."""

ENGINES = (ALL_OPTIONS, "distant", "partial")
"""The profiles of the example engines that declare one (differing.py,
distant.py, partial.py), measured on the whole corpus by `make bench`
(row 16)."""


@dataclass
class Sum:
    """Scenarios' deliveries summed."""

    events: int = 0
    unsent: int = 0
    refused: int = 0

    @property
    def delivered(self) -> int:
        return self.events - self.unsent - self.refused

    def add(self, found: Delivery) -> None:
        self.events += found.events
        self.unsent += len(found.unsent)
        self.refused += len(found.refused)


@dataclass
class Count:
    """One profile's counts over the corpus, and per family."""

    total: Sum = field(default_factory=Sum)
    outcomes: int = 0
    outcomes_unsent: int = 0
    families: dict[str, Sum] = field(default_factory=dict)

    def add(self, scenario: Scenario, found: Delivery) -> None:
        self.total.add(found)
        family = str(scenario.notes.get("family", "?"))
        self.families.setdefault(family, Sum()).add(found)
        ends = [p for p, e in enumerate(scenario.events) if e["event"] in ("end", "fail")]
        self.outcomes += len(ends)
        unsent = set(found.unsent)
        self.outcomes_unsent += sum(p in unsent for p in ends)


def measure(scenario: Scenario, profile: Profile) -> Delivery:
    """The scenario replayed through the model under `profile`, counted. One
    that the profile's differences from SPEC cannot change (a zoom option and
    no zoom, a chooser's option and no replies, ...: `inert`) is answered as
    under SPEC, which delivers every event of the corpus, and not replayed."""
    if inert(scenario, between(Trial(SPEC), Trial(profile)), SPEC):
        return Delivery(len(scenario.events), (), ())
    exchanges = from_model(scenario, profile, strict=False, refusals_only=True)
    return counted(scenario, profile, exchanges)


def counted(scenario: Scenario, profile: Profile, exchanges: Iterable[Exchange]) -> Delivery:
    """A replay of the scenario through the model under `profile`, counted."""
    sent: set[int] = set()
    refused: dict[int, str] = {}
    for exchange in exchanges:
        if exchange.position is not None:
            sent.add(exchange.position)
            if exchange.refused:
                refused[exchange.position] = exchange.expected["refused"]
    return delivery(scenario, profile, sent, refused)


def fraction(found: Sum) -> float:
    return found.delivered / found.events if found.events else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="profiles to measure (default: all)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--only", default="*", help="scenario names (a glob)")
    parser.add_argument("--head", type=int, help="only each scenario's first N events")
    parser.add_argument(
        "--engines", action="store_true", help="the example engines' profiles (ENGINES)"
    )
    args = parser.parse_args(argv)
    chosen = profiles()
    for name in args.names:
        if name not in chosen:
            parser.error(f"no profile {name!r}; profiles: {', '.join(chosen)}")
    names = [*args.names, *(ENGINES if args.engines else ())] or list(chosen)
    scenarios = [
        read(path)
        for path in sorted(args.corpus.glob("*.jsonl"))
        if fnmatch.fnmatch(path.stem, args.only)
    ]
    if args.head is not None:
        scenarios = [Scenario(s.constants, s.events[: args.head], notes=s.notes) for s in scenarios]
    print("| profile | events | not sent | refused, unmarked | outcomes not sent | delivered |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    low = []
    for name in names:
        count, said = Count(), time.monotonic()
        for done, scenario in enumerate(scenarios, start=1):
            count.add(scenario, measure(scenario, chosen[name]))
            if time.monotonic() - said >= 10:
                said_now = f"  {name}: {done} of {len(scenarios)} scenarios"
                print(said_now, file=sys.stderr, flush=True)
                said = time.monotonic()
        t = count.total
        worst = min(count.families.items(), key=lambda item: fraction(item[1]))
        print(
            f"| {name} | {t.events:,} | {t.unsent:,} | {t.refused:,} | "
            f"{count.outcomes_unsent:,} of {count.outcomes:,} "
            f"({percent(count.outcomes_unsent, count.outcomes)}) | "
            f"{percent(t.delivered, t.events)} (lowest: {worst[0]} "
            f"{percent(worst[1].delivered, worst[1].events)}) |",
            flush=True,
        )
        if fraction(t) < FLOOR:
            low.append(name)
    if low:
        print(f"below the floor ({FLOOR:.0%}): {', '.join(low)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
