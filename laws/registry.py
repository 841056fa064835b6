"""How a law is declared and what checking it yields.

A law is a function named exactly as the law of SPEC 8 whose docstring's
first paragraph states it in one sentence. There are two shapes:

- a *step law* takes one `Step` of a history (state before, event, state
  after) and asserts; the history runner checks it after every step of
  every generated history whose engine profile it applies to;
- a *check law* takes the run's `Profile` and returns a `Held` saying how
  strongly it holds, or raises `Broken`, or raises `Inconclusive` when a
  prover or solver ran out of its budget before deciding.

A prover out of budget is never a counterexample: Z3 runs under a resource
limit (`rlimit`, counted in Z3's own steps, the same on every machine),
CrossHair under budgets of CPU seconds, so a slow or loaded machine decides
exactly what a quiet one does; a wall-clock limit remains only as a safety
net against a hung prover, and running past it is `Inconclusive`.

A law may be switched off by an engine profile (SPEC 8, 10): its `off`
names the option that does, or gives None where it applies.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, seed, settings

from laws.proofs.result import Proof
from model.events import Event
from model.machine import State
from model.profile import Profile as EngineProfile
from scenarios.database import database as named

LOCAL = ".hypothesis-deep"
"""The folder an exploring run keeps failing examples in, between nights,
unless `--database` names another database (scenarios/database.py)."""


@dataclass(frozen=True)
class Profile:
    """How hard a run tries: `ci` is the gate, `deep` is for nightly runs.
    A run with a `seed` explores (new cases each seed, failures kept in the
    example `database` folder); without one it is derandomized, the same
    cases every run. `crosshair_seconds` is CrossHair's budget per condition,
    in CPU seconds."""

    name: str
    histories: int
    steps: int
    push_t: int
    push_k: int
    always_examples: int
    line_examples: int
    crosshair_seconds: float
    seed: int | None = None
    database: str | None = None
    """The example database's URL (scenarios/database.py)."""
    first_break: bool = False
    shrink: bool = True
    """Shrink counterexamples (off for `--first-break` and `--no-shrink`)."""
    """Stop at the first broken law, unshrunk: enough to know a deliberate
    break is caught (laws/mutants.py)."""
    processes: int = 2
    """The processes a proof may spread its cases over: the run's `--jobs`
    (push_agrees's Z3 cases; one: all in the law's own process)."""


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


def settings_for(profile: Profile, examples: int) -> Callable[[Any], Any]:
    """The Hypothesis settings of a law under a run profile: derandomized,
    or, for a run with a seed, random cases from that seed with failures
    kept in the example database."""
    if profile.seed is None:
        return derandomized(examples, shrink=profile.shrink)
    database = named(profile.database, LOCAL) if profile.database else None
    explore = settings(
        max_examples=examples,
        derandomize=False,
        database=database,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate]
        + ([Phase.shrink] if profile.shrink else []),
    )
    chosen_seed = profile.seed

    def apply(test: Any) -> Any:
        # The seed inside the settings: Hypothesis's `seed` alone turns the
        # example database off.
        return explore(seed(chosen_seed)(test))

    return apply


def derandomized(examples: int, shrink: bool = True) -> settings:
    """Hypothesis settings for a law: `examples` cases, the same ones every run
    (derandomized, no example database), no deadline on a shared machine.
    Hypothesis seeds a derandomized run from the test function's source, so
    editing that function changes its cases."""
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else [])
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=phases,
    )


@dataclass(frozen=True)
class Step:
    """One step of a history: the state before, the event, the state after,
    and the rule the model named when it refused the event."""

    before: State
    event: Event
    after: State
    refused: str | None = None


@dataclass(frozen=True)
class Held:
    """A law held; `strength` says how strongly (proved universally, proved
    for t up to N, property over K cases)."""

    strength: str


@dataclass(frozen=True)
class NotApplicable:
    """A law the run's engine profiles switch off: never counted as holding."""

    why: str


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


@dataclass
class Inconclusive(Exception):
    """A law that was neither shown to hold nor broken: a prover or solver
    ran out of its budget (`why` says which, and how far it got). Never
    counted as holding, never as broken: the run says so in the table and
    on its last line, and exits 0 (README, "Reading make laws")."""

    law: str
    statement: str
    why: str

    def __reduce__(self) -> tuple[type[Inconclusive], tuple[Any, ...]]:
        return Inconclusive, (self.law, self.statement, self.why)

    def __str__(self) -> str:
        return f"INCONCLUSIVE: {self.law}\n  says: {self.statement}\n  why:\n{indent(self.why)}"


def proved(function: Callable[..., Any], *proofs: Proof) -> str:
    """The strengths of Z3 proofs for a law, joined; Broken with the first
    refuted proof's counterexample when one is refuted, else Inconclusive
    when Z3 could not decide one within its resource limit."""
    for proof in proofs:
        if not proof.holds and proof.decided:
            raise Broken(
                function.__name__,
                statement_of(function),
                f"Z3 ({proof.name}): {proof.counterexample}",
            )
    for proof in proofs:
        if not proof.decided:
            raise Inconclusive(
                function.__name__,
                statement_of(function),
                f"Z3 ({proof.name}) could not decide within its resource limit, "
                f"which is no counterexample: {proof.counterexample}",
            )
    return "; ".join(f"{p.strength} [Z3 {p.name}, {p.seconds:.1f} s]" for p in proofs)


def indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


Off = Callable[[EngineProfile], str | None]
"""Which option of an engine profile switches a law off, or None."""


def always(_: EngineProfile) -> str | None:
    return None


def declared(option: str) -> Off:
    """Off while `option` keeps SPEC's value: a law of what an engine that
    declares another does (SPEC 8, 10), checked on histories of profiles
    that declare one (laws/history.py gives such a law a pass of its own)."""
    spec = getattr(EngineProfile(), option)

    def off(profile: EngineProfile) -> str | None:
        if getattr(profile, option) != spec:
            return None
        return f"{option} {json.dumps(spec, ensure_ascii=False)}"

    return off


@dataclass(frozen=True)
class Law:
    name: str
    area: str
    kind: str  # "step" or "check"
    function: Callable[..., Any]
    off: Off = always

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


def _register(kind: str, off: Off) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        area = function.__module__.split(".")[1]
        LAWS.append(Law(function.__name__, area, kind, function, off))
        return function

    return mark


def step_law(function: Callable[..., Any] | None = None, *, off: Off = always) -> Any:
    """Register a step law (`@step_law`, or `@step_law(off=...)` for a law an
    engine profile may switch off)."""
    mark = _register("step", off)
    return mark if function is None else mark(function)


check_law = _register("check", always)
