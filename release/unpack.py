"""The `__main__` of optchat-spec.pyz (release/zipapp.py puts it there):
the runner reads its corpus, transcripts and documents as files, so the
archive's payload is unpacked once per build into a cache folder, its
modules compiled there, and run from there. Every later run checks the
folder against the payload's hashes: a file whose size and times are still
those of the stamp made when it was last hashed (`STAMP`) is not read
again, so a start costs a `stat` per file, not a hash of the whole corpus;
a file written since is hashed, and the folder unpacked again when it
differs.

Where: `$XDG_CACHE_HOME/optchat-spec` (else `~/.cache/optchat-spec`); when
that cannot be written, a folder of this user's own in the temporary
directory (made 0700, refused if another user owns it or can write it);
failing both, a fresh temporary folder removed at exit. Each build unpacks
into `VERSION-DIGEST`, DIGEST being the SHA-256 of the payload's list of
hashes: two runs starting at once each unpack into a folder of their own
and move it into place; the first one there wins, the other uses it."""

from __future__ import annotations

import atexit
import compileall
import hashlib
import json
import os
import shutil
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

STAMP = ".stamp.json"
"""In the unpacked folder, beside the payload (whose names never start with
a dot): {"files": {path: [sha256, size, mtime_ns, ctime_ns]}}, each file as
it was when it was found to have its hash. Writing a file moves its change
time (ctime) even when its modification time is set back, and nothing but
the kernel sets a change time: a file whose three still match is the file
that was hashed."""

MANIFEST = "runner.json"
"""{"version": ..., "files": {path: sha256}}: the payload, under `PAYLOAD`."""
PAYLOAD = "runner/"


def sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def intact(folder: Path, hashes: dict[str, str]) -> bool:
    try:
        return all(sha256(folder / name) == digest for name, digest in hashes.items())
    except OSError:
        return False


def signature(path: Path) -> list[int]:
    """What `STAMP` keeps of a file: its size, modification and change times."""
    info = path.stat()
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def stamped(folder: Path, hashes: dict[str, str]) -> bool:
    """Whether every file of the payload is as the folder's stamp recorded it
    when it had its hash (a missing or unreadable stamp: no)."""
    try:
        kept = json.loads((folder / STAMP).read_bytes())["files"]
        return kept.keys() == hashes.keys() and all(
            kept[name] == [digest, *signature(folder / name)] for name, digest in hashes.items()
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def stamp(folder: Path, hashes: dict[str, str]) -> None:
    """Record the payload's files as they are now, whole (written aside, then
    moved into place); a folder that cannot take it is hashed at every start."""
    try:
        files = {name: [digest, *signature(folder / name)] for name, digest in hashes.items()}
        handle, aside = tempfile.mkstemp(prefix=".stamp-", dir=folder)
        with os.fdopen(handle, "w") as out:
            json.dump({"files": files}, out)
        os.replace(aside, folder / STAMP)
    except OSError:
        pass


def own_folder(path: Path) -> bool:
    """Whether `path` is a real folder that only this user can write."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError:
        return False
    mine = info.st_uid == os.getuid() and not info.st_mode & 0o022
    return mine and path.is_dir() and not path.is_symlink() and os.access(path, os.W_OK)


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        home = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    except RuntimeError:
        home = None
    for root in (
        home / "optchat-spec" if home else None,
        Path(tempfile.gettempdir()) / f"optchat-spec-{os.getuid()}",
    ):
        if root is not None and own_folder(root):
            return root
    scratch = Path(tempfile.mkdtemp(prefix="optchat-spec-"))
    atexit.register(shutil.rmtree, scratch, True)
    return scratch


def unpack(archive: zipfile.ZipFile, hashes: dict[str, str], into: Path) -> None:
    """The payload into the new folder `into`, each file checked against its
    hash (a damaged archive stops here)."""
    for name, digest in hashes.items():
        data = archive.read(PAYLOAD + name)
        if hashlib.sha256(data).hexdigest() != digest:
            raise SystemExit(f"optchat-spec: {archive.filename}: {name} is damaged")
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    # Compiled once here, so that no start compiles them again, even where
    # PYTHONDONTWRITEBYTECODE forbids keeping what an import compiles.
    compileall.compile_dir(into, quiet=2)


def ready(archive: zipfile.ZipFile) -> Path:
    """The folder the runner runs from, unpacked and checked."""
    listing = archive.read(MANIFEST)
    manifest = json.loads(listing)
    hashes: dict[str, str] = manifest["files"]
    root = cache_root()
    folder = root / f"{manifest['version']}-{hashlib.sha256(listing).hexdigest()[:16]}"
    if stamped(folder, hashes):
        return folder
    if intact(folder, hashes):
        stamp(folder, hashes)
        return folder
    fresh = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root))
    try:
        unpack(archive, hashes, fresh)
        stamp(fresh, hashes)
        if folder.exists() and not intact(folder, hashes):
            # changed since it was unpacked: set aside, never run
            shutil.rmtree(folder.rename(Path(tempfile.mkdtemp(dir=root)) / "damaged").parent)
        try:
            fresh.rename(folder)
        except OSError:
            if not intact(folder, hashes):  # not another run's complete folder
                raise
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return folder


def main() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 (any python3 may start the archive)
        raise SystemExit("optchat-spec needs Python 3.11 or later")
    try:
        with zipfile.ZipFile(Path(__file__).parent) as archive:
            folder = ready(archive)
    except (OSError, zipfile.BadZipFile, zlib.error, KeyError, ValueError) as error:
        print(f"optchat-spec: cannot unpack the runner: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.path[0] = str(folder)
    from bridge.cli import main as run

    raise SystemExit(run())


if __name__ == "__main__":
    main()
