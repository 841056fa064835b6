"""What a user names on the command line, read: an engine profile and a list
of known failures; a mistake in either is a UsageError, said in one line."""

from __future__ import annotations

import errno
from pathlib import Path

from bridge.formats import capabilities, limits
from bridge.formats.profile import parse
from bridge.formats.terminal import cut
from model.profile import Profile
from scenarios.format import loads


class UsageError(Exception):
    """A command-line mistake: said in one line, exit 2."""


OPTION_FILE_MOST = 1 << 24
"""The most bytes an option file (a profile, capabilities, constants, a list
of known failures or causes) is read to: far more than any needs, so that
`--known-causes /dev/zero` is refused instead of filling memory."""

REPORT_MOST = 1 << 28
"""The most bytes a report read again (merge-reports, matrix) is read to."""


def bounded(path: Path, most: int = OPTION_FILE_MOST) -> bytes:
    """The bytes of `path`, `most` at most: OSError when it holds more."""
    with path.open("rb") as file:
        data = file.read(most + 1)
    if len(data) > most:
        raise OSError(errno.EFBIG, f"larger than {most:,} bytes: not a file this option reads")
    return data


def list_lines(path: Path, option: str) -> list[tuple[int, list[str], str]]:
    """A list file (known failures, known causes) as an editor writes it:
    UTF-8, a byte-order mark allowed, lines split at line feeds only (a
    U+2028 inside a line leaves it one line), `#` comments; each line that
    says something, with its number, its words and itself."""
    try:
        text = bounded(path).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{option} {path}: cannot be read: {error}") from None
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        words = line.split("#")[0].split()
        if words:
            found.append((number, words, line.removesuffix("\r")))
    return found


def read_profile(path: Path | None) -> Profile | None:
    """The profile a `--profile` file declares; None when none is named."""
    if path is None:
        return None
    try:
        return parse(loads(bounded(path).decode("utf-8")), str(path))
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
            return capabilities.parse(loads(bounded(path).decode("utf-8")), str(path))
        return capabilities.from_text(given, "the list")
    except (OSError, ValueError) as error:
        raise UsageError(f"--capabilities {given}: {error}") from None


def read_proposal(given: str | None) -> tuple[Profile, frozenset[str]] | None:
    """The profile and capabilities `--proposal` gives, as `diagnose` prints
    its proposal (`{"profile": {...}, "capabilities": [...]}`): that text
    (one that starts as JSON does), or a file holding it; None when the
    option is not given."""
    if given is None:
        return None
    # Asked first whether it names a file, a proposal longer than a file's
    # name may be is an OSError (ENAMETOOLONG) before it is read as JSON.
    text = given.lstrip().startswith(("{", "["))
    try:
        data = loads(given if text else bounded(Path(given)).decode("utf-8"))
        if not isinstance(data, dict) or sorted(data) != ["capabilities", "profile"]:
            raise ValueError('not {"profile": {...}, "capabilities": [...]}, as diagnose prints it')
        where = "the proposal"
        return parse(data["profile"], where), capabilities.parse(data["capabilities"], where)
    except (OSError, ValueError) as error:
        raise UsageError(f"--proposal {cut(given, 80)}: {error}") from None


def read_constants(path: Path | None) -> limits.Limits | None:
    """The constants a `--constants` file says the engine accepts; None when
    none is named."""
    if path is None:
        return None
    try:
        return limits.parse(loads(bounded(path).decode("utf-8")), str(path))
    except (OSError, ValueError) as error:
        raise UsageError(f"--constants {path}: {error}") from None


KNOWN_OUTCOMES = {"fail": "FAIL", "fault": "FAULT", "skip": "SKIPPED"}
"""The outcomes a known-failures line may expect, and the status each names."""

WORDS = {status: word for word, status in KNOWN_OUTCOMES.items()}
"""Each status, as a known-failures line says it."""

NOT_RUN_SHOWN = 10
"""How many names of a known-failures list that were not run a run names;
the others it counts (a list of a million names is not a million lines)."""


def not_run(names: list[str], path: Path | None) -> list[str]:
    """The notes of a run on the names of its known-failures list (`path`)
    it did not run: the first NOT_RUN_SHOWN, then how many more."""
    notes = [f"note: {cut(name)} is listed as a known failure but was not run" for name in names]
    if len(notes) <= NOT_RUN_SHOWN:
        return notes
    more = len(names) - NOT_RUN_SHOWN
    return notes[:NOT_RUN_SHOWN] + [f"note: and {more:,} more names of {path} were not run"]


def load_known(path: Path | None) -> dict[str, str]:
    """A known-failures file: one scenario a line, `NAME` or `NAME OUTCOME`
    (`fail`, the default; `fault`; `skip`), `#` comments, a UTF-8
    byte-order mark allowed; each name with the status it is expected to end
    in. A name listed twice must be listed alike."""
    if path is None:
        return {}
    known: dict[str, str] = {}
    where: dict[str, int] = {}
    for number, words, line in list_lines(path, "--known-failures"):
        if len(words) > 2 or (len(words) == 2 and words[1] not in KNOWN_OUTCOMES):
            raise UsageError(
                f"--known-failures {path}:{number}: not `NAME` or `NAME fail|fault|skip`: "
                f"{cut(repr(line.strip()))}"
            )
        name, word = words[0], words[1] if len(words) == 2 else "fail"
        if known.get(name, KNOWN_OUTCOMES[word]) != KNOWN_OUTCOMES[word]:
            said = WORDS[known[name]]
            raise UsageError(
                f"--known-failures {path}:{number}: {cut(name)} {word}, but line {where[name]} "
                f"says {cut(name)} {said}: which is it?"
            )
        known[name], where[name] = KNOWN_OUTCOMES[word], where.get(name, number)
    return known


def write_known(path: Path, known: dict[str, str]) -> None:
    """A known-failures file listing `known` (names and expected statuses), one a line."""
    lines = [f"{name} {WORDS[status]}\n" for name, status in sorted(known.items())]
    text = "# written by optchat-spec corpus --write-known-failures: remove a line once it passes\n"
    try:
        path.write_text(text + "".join(lines), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--write-known-failures {path}: cannot be written: {error}") from None
