"""The two kits users get, each built once per test worker and shared by
every test that needs it (a fixture a test module imports is a fixture of
that module, built again there; the tests that take one share an
xdist_group, so one worker builds it): the wheel installed into a bare
virtual environment, and the zipapp (release/zipapp.py), which a test gets
alone in an empty directory, its payload unpacked at its first run
(`pyz`), or already unpacked in its HOME's cache: shared (`warm_pyz`), or a
copy of its own to change (`unpacked_pyz`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from release import zipapp

ROOT = Path(__file__).resolve().parents[2]

PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
"""The interpreter this venv was made from: no package of the venv in sight."""

NOT_SHIPPED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "target",
    "__pycache__",
    "*.egg-info",
    ".*_cache",
    ".hypothesis*",
    "optchat-*",
)


def bare_env() -> dict[str, str]:
    """This environment without anything that points Python or pip elsewhere."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "OPTCHAT"))}


def bare_venv(where: Path) -> Path:
    """A fresh virtual environment without pip at `where`; its python."""
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(where)],
            env=bare_env(),
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"a virtual environment cannot be made here: {error}")
    return where / "bin" / "python"


PIP = [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check", "--no-cache-dir"]
"""pip, told to read no configuration (and so no index or links it names),
nor to keep a cache (in ~/.cache, which may not be writable)."""


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    empty: Path
    """An empty directory to run the command from."""
    env: dict[str, str]
    """The environment without the project on PYTHONPATH."""

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def engine(self) -> str:
        return f"{self.python} -m impl.protocol"

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "optchat-spec"), *args],
            cwd=cwd or self.empty,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built by pip from a copy of the project (so nothing is
    written into the tree) with build isolation and no index: the build
    backend must need nothing. Installed into a fresh virtual environment
    that has no pip, with pip told to look in no index: a declared
    dependency would fail it, and nothing but the kit may land there."""
    env = bare_env()
    source = tmp_path_factory.mktemp("clone") / "optchat-spec"
    shutil.copytree(ROOT, source, ignore=NOT_SHIPPED)
    dist = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [*PIP, "wheel", str(source), "--no-deps", "--no-index", "-w", dist],
        env=env,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, f"the wheel was not built offline:\n{built.stdout}{built.stderr}"
    (wheel,) = dist.glob("optchat_spec-*.whl")
    venv = tmp_path_factory.mktemp("venv") / "v"
    python = bare_venv(venv)
    done = subprocess.run(
        [*PIP, "--python", str(python), "install", "--no-index", str(wheel)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"not installed without any other package:\n{done.stderr}"
    (site,) = venv.glob("lib/python*/site-packages")
    # Nothing but the kit itself was installed.
    assert [p.name.split("-")[0] for p in site.glob("*.dist-info")] == ["optchat_spec"]
    return Installed(wheel, venv, tmp_path_factory.mktemp("empty"), env)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The zipapp of this tree (tests copy it; none writes to it)."""
    return zipapp.build(tmp_path_factory.mktemp("dist"))


@pytest.fixture
def pyz(built: Path, tmp_path: Path) -> Path:
    """The zipapp alone in an empty directory."""
    (tmp_path / "empty").mkdir()
    return Path(shutil.copy(built, tmp_path / "empty" / zipapp.NAME))


@pytest.fixture(scope="session")
def warm_home(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME whose cache holds the zipapp's payload, unpacked by one run:
    for the tests of what the zipapp does once unpacked (its first runs, the
    unpacking, are tests/packaging/test_zipapp.py's and tests/hostile/test_unpack.py's)."""
    home = tmp_path_factory.mktemp("warm") / "home"
    done = subprocess.run(
        [str(PYTHON), "-I", str(built), "--version"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return home


@pytest.fixture
def warm_pyz(pyz: Path, warm_home: Path) -> Path:
    """The zipapp alone in an empty directory, its HOME (beside that
    directory) the one whose cache holds its payload already."""
    (pyz.parent.parent / "home").symlink_to(warm_home, target_is_directory=True)
    return pyz


@pytest.fixture
def unpacked_pyz(pyz: Path, warm_home: Path) -> Path:
    """The zipapp alone in an empty directory, its HOME (beside that
    directory) a copy of the one whose cache holds its payload: the copied
    files' change times are new, so its first run hashes them again."""
    shutil.copytree(warm_home, pyz.parent.parent / "home", symlinks=True)
    return pyz
