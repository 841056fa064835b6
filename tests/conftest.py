"""Engines the tests start as processes import the project: they find it
as `make test` runs them (PYTHONPATH set to the project) however pytest
itself was started. Each test process, and all it starts, has a HOME of
its own (`own_home`): the user's may be read-only, and no test writes
there. Every Hypothesis test runs without a deadline and without the health
check that times its data: a loaded machine is slow, never wrong (a test's
own settings override these where they say otherwise).
A session engine that `bridge.runs.corpus.check` keeps for the next scenario
is ended after each test, as `corpus` ends it at the end of a run."""

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bridge.runs.corpus import close_kept
from tests.packaging.kits import (  # noqa: F401 (fixtures for every test)
    built,
    installed,
    pyz,
    unpacked_pyz,
    warm_home,
    warm_pyz,
)

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)


def own_home(home: Path) -> dict[str, str]:
    """The environment of a HOME at `home`, its caches and configuration
    there too (pip's, the XDG folders), where the tools installed in the
    user's HOME are still found: rustup's toolchains (RUSTUP_HOME) and git's
    configuration (GIT_CONFIG_GLOBAL: a `safe.directory` of a CI checkout)."""
    real = Path.home()
    env = {"HOME": str(home), "PIP_CACHE_DIR": str(home / ".cache" / "pip")}
    for name, folder in (("CACHE", ".cache"), ("CONFIG", ".config"), ("DATA", ".local/share")):
        env[f"XDG_{name}_HOME"] = str(home / folder)
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    rustup = Path(os.environ.get("RUSTUP_HOME") or real / ".rustup")
    if rustup.is_dir():
        env["RUSTUP_HOME"] = str(rustup)
    git = Path(os.environ.get("GIT_CONFIG_GLOBAL") or real / ".gitconfig")
    if git.is_file():
        env["GIT_CONFIG_GLOBAL"] = str(git)
    return env


HOME = Path(tempfile.mkdtemp(prefix="optchat-test-home-"))
atexit.register(shutil.rmtree, HOME, True)
os.environ.update(own_home(HOME))

settings.register_profile("unhurried", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("unhurried")


@pytest.fixture(autouse=True)
def kept_engines_ended() -> Iterator[None]:
    yield
    close_kept()
