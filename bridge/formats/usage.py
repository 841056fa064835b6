"""What a user names on the command line, read: an engine profile and a list
of known failures; a mistake in either is a UsageError, said in one line."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from bridge.formats.profile import parse
from model.profile import Profile
from scenarios.format import loads


def program() -> str:
    """The runner as the user started it, for a command a report or hint
    repeats: `optchat-spec` when installed, `python3 FILE.pyz` for the
    single-file runner, `python -m bridge` from a clone."""
    started = Path(sys.argv[0] if sys.argv and sys.argv[0] else "")
    if started.suffix == ".pyz":
        return f"python3 {shlex.quote(str(started))}"
    if started.name.startswith("optchat-spec"):
        return "optchat-spec"
    return "python -m bridge"


class UsageError(Exception):
    """A command-line mistake: said in one line, exit 2."""


def read_profile(path: Path | None) -> Profile | None:
    """The profile a `--profile` file declares; None when none is named."""
    if path is None:
        return None
    try:
        return parse(loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError) as error:
        raise UsageError(f"--profile {path}: {error}") from None


def load_known(path: Path | None) -> set[str]:
    """Scenario names listed in a known-failures file: one per line, `#` comments."""
    if path is None:
        return set()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--known-failures {path}: cannot be read: {error}") from None
    return {line.split("#")[0].strip() for line in text.splitlines()} - {""}
