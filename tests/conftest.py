"""Engines the tests start as processes import the project: they find it
as `make test` runs them (PYTHONPATH set to the project) however pytest
itself was started."""

import os
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
