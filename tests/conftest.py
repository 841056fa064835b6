"""Engines the tests start as processes import the project: they find it
as `make test` runs them (PYTHONPATH set to the project) however pytest
itself was started. Every Hypothesis test runs without a deadline and
without the health check that times its data: a loaded machine is slow,
never wrong (a test's own settings override these where they say otherwise)."""

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)

settings.register_profile("unhurried", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("unhurried")
