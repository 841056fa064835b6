"""How a law is declared and what checking it yields.

A law is a function named exactly as the law of SPEC 8 whose docstring's
first paragraph states it in one sentence. There are two shapes:

- a *step law* takes one `Step` of a history (state before, event, state
  after) and asserts; the history runner checks it after every step of
  every generated history;
- a *check law* takes the run's `Profile` and returns a `Held` saying how
  strongly it holds, or raises `Broken`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, settings

from laws.proofs.result import Proof
from model.events import Event
from model.machine import State


@dataclass(frozen=True)
class Profile:
    """How hard a run tries: `ci` is the gate, `deep` is for nightly runs."""

    name: str
    histories: int
    steps: int
    push_t: int
    push_k: int
    always_examples: int
    line_examples: int
    crosshair_seconds: float


PROFILES = {
    "ci": Profile(
        "ci",
        histories=300,
        steps=100,
        push_t=20_000,
        push_k=14,
        always_examples=300,
        line_examples=500,
        crosshair_seconds=2.0,
    ),
    "deep": Profile(
        "deep",
        histories=5_000,
        steps=300,
        push_t=20_000,
        push_k=16,
        always_examples=20_000,
        line_examples=50_000,
        crosshair_seconds=20.0,
    ),
}


def derandomized(examples: int) -> settings:
    """Hypothesis settings for a law: `examples` cases, the same ones every run
    (derandomized, no example database), no deadline on a shared machine."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
    )


@dataclass(frozen=True)
class Step:
    """One step of a history: the state before, the event, the state after."""

    before: State
    event: Event
    after: State


@dataclass(frozen=True)
class Held:
    """A law held; `strength` says how strongly (proved universally, proved
    for t up to N, property over K cases)."""

    strength: str


@dataclass
class Broken(Exception):
    """A law failed: what it says, the smallest counterexample found, and
    where that counterexample was written as a replayable scenario."""

    law: str
    statement: str
    counterexample: str
    scenario: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[type[Broken], tuple[Any, ...]]:
        # Check laws run in a worker process; their verdicts travel back pickled.
        return Broken, (self.law, self.statement, self.counterexample, self.scenario, self.extra)

    def __str__(self) -> str:
        where = f"\n  replay: {self.scenario}" if self.scenario else ""
        return (
            f"LAW BROKEN: {self.law}\n  says: {self.statement}\n"
            f"  counterexample:\n{indent(self.counterexample)}{where}"
        )


def proved(function: Callable[..., Any], *proofs: Proof) -> str:
    """The strengths of Z3 proofs for a law, joined; Broken with the first
    failing proof's counterexample when one does not hold."""
    for proof in proofs:
        if not proof.holds:
            raise Broken(
                function.__name__,
                statement_of(function),
                f"Z3 ({proof.name}): {proof.counterexample}",
            )
    return "; ".join(f"{p.strength} [Z3 {p.name}, {p.seconds:.1f} s]" for p in proofs)


def indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


@dataclass(frozen=True)
class Law:
    name: str
    area: str
    kind: str  # "step" or "check"
    function: Callable[..., Any]

    @property
    def statement(self) -> str:
        return statement_of(self.function)

    @property
    def source(self) -> str:
        return inspect.getsource(self.function)


def statement_of(function: Callable[..., Any]) -> str:
    """A law's one-sentence statement: its docstring's first paragraph."""
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.split("\n\n")[0].split())


LAWS: list[Law] = []


def _register(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        area = function.__module__.split(".")[1]
        LAWS.append(Law(function.__name__, area, kind, function))
        return function

    return mark


step_law = _register("step")
check_law = _register("check")
