"""The example engines, known by name (`--engine example:NAME [ARGS]`):
the programs of the project's tests/bridge/engines/, each `python -m
impl.protocol` with a planted bug or a declared difference, run by the
runner's own Python with the runner's packages first on its path, from a
clone (where they are) and from the wheel or the zipapp (which ship them
as data under bridge/examples/engines/, release/files.py). NAME is the
file's name without `.py`, `-` for `_`: `example:ahead-bug` is
ahead_bug.py."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from bridge.formats.invocation import PACKAGES
from bridge.formats.usage import UsageError
from bridge.wire.process import ProcessEngine

PREFIX = "example:"
FOLDERS = (PACKAGES / "bridge" / "examples" / "engines", PACKAGES / "tests" / "bridge" / "engines")
"""Where the example engines are: what an install shipped, else a clone's tests."""


def known() -> dict[str, Path]:
    """{name: program} of every example engine there is, by name."""
    folder = next((f for f in FOLDERS if f.is_dir()), None)
    if folder is None:
        return {}
    return {p.stem.replace("_", "-"): p for p in sorted(folder.glob("*.py"))}


def program(spec: str) -> list[str]:
    """The command line of `example:NAME ARGS`: its program and arguments;
    a UsageError in one line, naming those there are, for a name none has."""
    try:
        name, *arguments = shlex.split(spec.removeprefix(PREFIX)) or [""]
    except ValueError as error:
        raise UsageError(f"--engine {spec}: {error}") from None
    found = known().get(name)
    if found is None:
        names = ", ".join(known()) or "none here"
        raise UsageError(f"--engine {PREFIX}{name}: no example engine of that name ({names})")
    return [str(found), *arguments]


def example(spec: str, timeout: float) -> ProcessEngine:
    """The example engine `spec` names, as a protocol process."""
    subject = ProcessEngine(shlex.join([sys.executable, *program(spec)]), timeout)
    subject.name = spec
    subject.env = {**os.environ, "PYTHONPATH": str(PACKAGES), "PYTHONDONTWRITEBYTECODE": "1"}
    return subject
