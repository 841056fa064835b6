"""Reports written whole or not at all, to places checked before a run.

A report (JUnit XML, JSON, a page, a regression) is written to a temporary
file beside it and renamed over it, so a reader never sees half of one; the
places a command will write to are tried before it runs, so an unwritable
one is said in one line (exit 2) instead of after the whole run. The
rename is for regular files only: a device, a FIFO or a symlink is written
through in place (`--json /dev/stdout` prints; `/dev/null`, run as root,
stays a device), and a folder is refused."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from bridge.formats.usage import UsageError


def in_place(path: Path) -> bool:
    """Whether `path` is written through rather than replaced: it is there
    and is not a regular file (a symlink, a device, a FIFO, a socket)."""
    try:
        return not stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def is_folder(path: Path) -> bool:
    """Whether `path` is a folder, or a link to one."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except OSError:
        return False


def write_through(path: Path, raw: bytes) -> None:
    """Write `raw` to what `path` names, in place; to this process's stdout
    when that is what it names (`/dev/stdout`), after what was printed
    before, which stays."""
    try:
        printing = os.path.samestat(os.fstat(sys.stdout.fileno()), path.stat())
    except (OSError, AttributeError, ValueError):
        printing = False
    if printing:
        sys.stdout.flush()
        with open(sys.stdout.fileno(), "wb", closefd=False) as out:
            out.write(raw)
        return
    with open(path, "wb") as out:
        out.write(raw)


def write_whole(path: Path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8) to `path` through a temporary file in the
    same folder, renamed over it; on any error nothing is left behind. What
    `in_place` names is written through instead; a folder is refused. A
    write that fails (a full disk, `/dev/full`) is a UsageError, in one line."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if is_folder(path):
        raise UsageError(f"{path}: is a folder; name a file")
    try:
        if in_place(path):
            write_through(path, raw)
        else:
            replace_with(path, raw)
    except OSError as error:
        raise UsageError(f"{path}: cannot be written ({error.strerror or error})") from None
    return path


def replace_with(path: Path, raw: bytes) -> None:
    """`path` made a regular file of `raw` by a rename, never half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _try_folder(folder: Path, option: str, shown: Path) -> None:
    """Make `folder` (and its parents) and create a file in it, or say why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder, prefix=".optchat-probe-"):
            pass
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"{option} {shown}: a file is where folder {folder} should be") from None
    except OSError as error:
        why = error.strerror or str(error)
        raise UsageError(f"{option} {shown}: cannot be written ({why})") from None


def check_file(path: Path, option: str) -> None:
    """UsageError (one line) unless a report can be written as file `path`."""
    if is_folder(path):
        raise UsageError(f"{option} {path}: is a folder; name a file")
    if in_place(path) and path.exists():
        if not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path}: cannot be written (permission denied)")
        return
    _try_folder((path.resolve() if in_place(path) else path).parent, option, path)


def check_folder(path: Path, option: str) -> None:
    """UsageError (one line) unless reports can be written in folder `path`."""
    _try_folder(path, option, path)


def apart(outputs: list[tuple[str, Path]], inputs: list[Path]) -> None:
    """UsageError (one line) when an output is one of the inputs, or two
    outputs are one file: one would be written over the other. A device or
    a FIFO is written through, never over, so it may be named twice."""
    files = [(option, out) for option, out in outputs if not is_stream(out)]
    for k, (option, out) in enumerate(files):
        for path in inputs:
            if same_file(out, path):
                raise UsageError(f"{option} {out} is one of the reports read ({path})")
        for other, earlier in files[:k]:
            if same_file(out, earlier):
                raise UsageError(f"{option} {out} is {other} {earlier} too: name two files")


def is_stream(path: Path) -> bool:
    """Whether `path` names something that is not a file: a device, a FIFO, a socket."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


HELD: dict[Path, int] = {}
"""The report folders this command holds (`hold`), each by an open descriptor."""


def hold(folder: Path, option: str) -> None:
    """Hold `folder` for this command's reports until `release`, by an
    advisory lock on the folder itself (the kernel drops it when the process
    ends, however it ends): UsageError when another run holds it, so that
    two runs never write their reports into one folder over each other."""
    try:
        import fcntl
    except ImportError:
        return  # no advisory locks on this system (not POSIX)
    key = folder.resolve()
    if key in HELD:
        return
    handle = os.open(key, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(handle)
        raise UsageError(
            f"{option} {folder}: another run is writing its reports there; "
            "wait for it to end, or name another folder"
        ) from None
    HELD[key] = handle


def release() -> None:
    """Let go of every folder `hold` holds (the command has ended)."""
    while HELD:
        os.close(HELD.popitem()[1])


def same_file(a: Path, b: Path) -> bool:
    """Whether two names name one file (however spelt, or through a link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()
