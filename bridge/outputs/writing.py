"""Reports written whole or not at all, to places checked before a run.

A report (JUnit XML, JSON, a page, a regression) is written to a temporary
file beside it and renamed over it, so a reader never sees half of one; the
places a command will write to are tried before it runs, so an unwritable
one is said in one line (exit 2) instead of after the whole run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bridge.formats.usage import UsageError


def write_whole(path: Path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8) to `path` through a temporary file in the
    same folder, renamed over it; on any error nothing is left behind."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
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
    return path


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
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder; name a file")
    _try_folder(path.parent, option, path)


def check_folder(path: Path, option: str) -> None:
    """UsageError (one line) unless reports can be written in folder `path`."""
    _try_folder(path, option, path)


def same_file(a: Path, b: Path) -> bool:
    """Whether two names name one file (however spelt, or through a link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()
