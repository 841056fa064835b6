"""Engines the tests start as processes import the project: they find it
as `make test` runs them (PYTHONPATH set to the project) however pytest
itself was started. Every Hypothesis test runs without a deadline and
without the health check that times its data: a loaded machine is slow,
never wrong (a test's own settings override these where they say otherwise).
A session engine that `bridge.runs.corpus.check` keeps for the next scenario
is ended after each test, as `corpus` ends it at the end of a run."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bridge.runs.corpus import close_kept
from tests.packaging.kits import built, installed, pyz  # noqa: F401 (fixtures for every test)

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)

settings.register_profile("unhurried", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("unhurried")


@pytest.fixture(autouse=True)
def kept_engines_ended() -> Iterator[None]:
    yield
    close_kept()
