"""An engine checked against the model on one scenario, for a page that
shows it (`show --engine`): both sides' names, one line saying how it went,
and the divergence, with both whole states there."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.checking.compare import Divergence, add_states, run
from bridge.checking.coverage import Coverage
from bridge.checking.delivery import add_delivery
from bridge.checking.verdict import Skipped, lacks_for
from bridge.formats.profile import SPEC, agreement
from bridge.wire import factory
from bridge.wire.engine import profile_of
from bridge.wire.inprocess import ModelEngine
from bridge.wire.stream import from_model
from model.profile import Profile
from scenarios.format import Scenario


@dataclass(frozen=True)
class Comparison:
    """An engine checked against the model on the scenario: both sides'
    names, one line saying how it went, and the divergence, if any, with
    the scenario shrunk from it (bridge/checking/shrink.py), and how the
    model's profile was given when not by the engine (`under`: `compare
    --proposal`)."""

    names: tuple[str, str]
    verdict: str
    divergence: Divergence | None = None
    shrunk: Scenario | None = None
    under: str = ""


def against(
    scenario: Scenario, command: str, given: Profile | None, timeout: float
) -> tuple[Profile, Comparison]:
    """An engine replayed on the scenario and compared with the model at every
    answer (bridge/checking/compare.py), with both whole states at a divergence; the
    profile to show the model under is the engine's."""
    subject = factory.engine(command, timeout, given or SPEC)
    names = ("model", subject.name)
    try:
        ready = subject.start(scenario)
        if ready.unsupported:
            return given or SPEC, Comparison(
                names, f"{subject.name} cannot take it: {ready.unsupported}"
            )
        profile = profile_of(ready.profile, given, subject.name)
        lacks = lacks_for(scenario, ready, None, subject.name)
        coverage = Coverage(len(scenario.events), lacking=tuple(c.name for c in lacks))
        exchanges = from_model(scenario, profile, strict=False, lacks=lacks)
        result = run(exchanges, subject, ready, lacks=lacks, coverage=coverage)
    except Skipped as skipped:
        return given or SPEC, Comparison(names, f"{subject.name}: SKIPPED: {skipped}")
    finally:
        subject.close()
    if result.unsupported is not None:
        return profile, Comparison(names, f"{subject.name} does not support {result.unsupported}")
    found = result.divergence
    if found is None:
        add_delivery(scenario, profile, result)
        verdict = (
            f"{subject.name} agrees at all {result.answers} answers; {agreement(profile)}; "
            + coverage.summary()
        )
        return profile, Comparison(names, verdict)
    add_states(
        found, scenario, ModelEngine(profile), factory.engine(command, timeout, given or SPEC)
    )
    verdict = (
        f"DIVERGENCE between {names[0]} and {names[1]}: {found.summary()}; {coverage.summary()}"
    )
    return profile, Comparison(names, verdict, found)
