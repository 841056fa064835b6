"""What a user names on the command line, read: an engine profile and a list
of known failures; a mistake in either is a UsageError, said in one line."""

from __future__ import annotations

from pathlib import Path

from bridge.formats import capabilities, limits
from bridge.formats.profile import parse
from model.profile import Profile
from scenarios.format import loads


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


def read_capabilities(given: str | None) -> frozenset[str] | None:
    """The capabilities `--capabilities` names: `NAME,NAME` (empty: none), or
    a file holding a JSON array of names; None when the option is not given."""
    if given is None:
        return None
    path = Path(given)
    try:
        if path.is_file():
            return capabilities.parse(loads(path.read_text(encoding="utf-8")), str(path))
        return capabilities.from_text(given, "the list")
    except (OSError, ValueError) as error:
        raise UsageError(f"--capabilities {given}: {error}") from None


def read_constants(path: Path | None) -> limits.Limits | None:
    """The constants a `--constants` file says the engine accepts; None when
    none is named."""
    if path is None:
        return None
    try:
        return limits.parse(loads(path.read_text(encoding="utf-8")), str(path))
    except (OSError, ValueError) as error:
        raise UsageError(f"--constants {path}: {error}") from None


KNOWN_OUTCOMES = {"fail": "FAIL", "fault": "FAULT", "skip": "SKIPPED"}
"""The outcomes a known-failures line may expect, and the status each names."""


def load_known(path: Path | None) -> dict[str, str]:
    """A known-failures file: one scenario a line, `NAME` or `NAME OUTCOME`
    (`fail`, the default; `fault`; `skip`), `#` comments; each name with the
    status it is expected to end in."""
    if path is None:
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--known-failures {path}: cannot be read: {error}") from None
    known: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#")[0].split()
        if not words:
            continue
        if len(words) > 2 or (len(words) == 2 and words[1] not in KNOWN_OUTCOMES):
            raise UsageError(
                f"--known-failures {path}:{number}: not `NAME` or `NAME fail|fault|skip`: "
                f"{line.strip()!r}"
            )
        known[words[0]] = KNOWN_OUTCOMES[words[1] if len(words) == 2 else "fail"]
    return known


def write_known(path: Path, known: dict[str, str]) -> None:
    """A known-failures file listing `known` (names and expected statuses), one a line."""
    word = {status: name for name, status in KNOWN_OUTCOMES.items()}
    lines = [f"{name} {word[status]}\n" for name, status in sorted(known.items())]
    text = "# written by optchat-spec corpus --write-known-failures: remove a line once it passes\n"
    try:
        path.write_text(text + "".join(lines), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--write-known-failures {path}: cannot be written: {error}") from None
