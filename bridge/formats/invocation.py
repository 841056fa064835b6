"""The command the user ran the runner with, as a hint repeats it: the
installed `optchat-spec` (its full path when it is not the one on PATH),
`python3 /path/optchat-spec.pyz` from the single-file runner, `python -m
bridge` from a clone; and whether this runner is a clone."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import zipfile
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[2]
"""The folder holding the runner's packages (bridge/, impl/, model/, scenarios/):
a clone's root, site-packages, or the zipapp's unpacked folder."""


def clone() -> bool:
    """Whether the runner runs from a clone of the project: its root holds
    pyproject.toml and .git beside the packages (a wheel or a zipapp ships neither)."""
    return (PACKAGES / "pyproject.toml").is_file() and (PACKAGES / ".git").exists()


def _on_path(name: str, target: str) -> str:
    """`name` when it runs `target` from PATH, else `target`'s full path."""
    found = shutil.which(name)
    same = found is not None and os.path.abspath(found) == os.path.abspath(target)
    return name if same else shlex.quote(os.path.abspath(target))


def command() -> str:
    """The command that starts this runner again, as typed in a shell."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    python = _on_path("python3", sys.executable)
    if started is not None and started.is_file() and zipfile.is_zipfile(started):
        return f"{python} {shlex.quote(str(started.resolve()))}"
    if started is not None and started.name == "optchat-spec":
        return _on_path("optchat-spec", str(started))
    python = _on_path("python", sys.executable)
    if not clone() or _importable():
        return f"{python} -m bridge"
    return f"PYTHONPATH={shlex.quote(str(PACKAGES))} {python} -m bridge"


def _importable() -> bool:
    """Whether `python -m bridge` finds a clone's packages from here: the
    current directory is its root, or PYTHONPATH names it."""
    where = [
        Path.cwd(),
        *(Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p),
    ]
    return any(p.resolve() == PACKAGES for p in where)
