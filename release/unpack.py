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
and move it into place; the first one there wins, the other uses it.

Nothing is written before the whole payload is checked: runner.json's
shape, every name (plain parts under the folder: no `..`, no absolute
path) and every member's hash; a damaged or tampered archive is one line
and exit 2. The folder is this user's alone (0700) and holds the payload
only (`kept_to_itself`): one that others may write, or holding anything
else (a module dropped there), is set aside and unpacked again. The runner
imports from it after the standard library, so nothing there shadows a
standard module."""

from __future__ import annotations

import atexit
import compileall
import hashlib
import json
import os
import re
import shutil
import sys
import sysconfig
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

PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
"""One part of a payload's name, or the version: a plain file or folder name
(never `.` or `..`, never hidden)."""

DIGEST = re.compile(r"[0-9a-f]{64}")

BESIDE = ("__pycache__", ".stamp")
"""What the folder holds beside the payload, by how its name starts:
Python's bytecode, and `STAMP` (with its temporary files)."""


class Damaged(ValueError):
    """An archive whose payload is not what runner.json says, or a
    runner.json that is not one."""


def listing(archive: zipfile.ZipFile) -> tuple[str, dict[str, str]]:
    """The version and the payload's {name: sha256} runner.json holds;
    Damaged unless the version and each name are plain names under the
    folder and each hash is a SHA-256."""
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except (KeyError, ValueError) as error:
        raise Damaged(f"{MANIFEST}: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise Damaged(f'{MANIFEST} is not {{"version": ..., "files": {{path: sha256}}}}')
    version, hashes = manifest.get("version"), manifest["files"]
    if not isinstance(version, str) or not PART.fullmatch(version):
        raise Damaged(f"{MANIFEST}: the version {version!r:.80} is not a plain name")
    for name, digest in hashes.items():
        if not all(PART.fullmatch(part) for part in name.split("/")):
            raise Damaged(f"{MANIFEST}: {name!r:.80} is not a name the payload may hold")
        if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
            raise Damaged(f"{MANIFEST}: the hash of {name} is not a SHA-256")
    return version, hashes


def checked(archive: zipfile.ZipFile, hashes: dict[str, str]) -> dict[str, bytes]:
    """The payload, each member checked against its hash; Damaged for the
    first that is not what runner.json says."""
    payload = {}
    for name, digest in hashes.items():
        try:
            data = archive.read(PAYLOAD + name)
        except KeyError:
            raise Damaged(f"{name} is missing") from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise Damaged(f"{name} is damaged")
        payload[name] = data
    return payload


def sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def intact(folder: Path, hashes: dict[str, str]) -> bool:
    try:
        return all(sha256(folder / name) == digest for name, digest in hashes.items())
    except OSError:
        return False


def kept_to_itself(folder: Path, hashes: dict[str, str]) -> bool:
    """Whether `folder` is a real folder of this user's alone (no one else
    may even read it) holding nothing beside the payload but `BESIDE`."""
    tops = {name.split("/")[0] for name in hashes}
    try:
        info = folder.lstat()
        if folder.is_symlink() or not folder.is_dir():
            return False
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            return False
        return all(e in tops or e.startswith(BESIDE) for e in os.listdir(folder))
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


def unpack(payload: dict[str, bytes], into: Path) -> None:
    """The checked payload into the new folder `into` (made 0700)."""
    for name, data in payload.items():
        target = into / name
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        target.write_bytes(data)
    # Compiled once here, so that no start compiles them again, even where
    # PYTHONDONTWRITEBYTECODE forbids keeping what an import compiles.
    compileall.compile_dir(into, quiet=2)


def ready(archive: zipfile.ZipFile) -> Path:
    """The folder the runner runs from, unpacked and checked."""
    version, hashes = listing(archive)
    digest = hashlib.sha256(archive.read(MANIFEST)).hexdigest()[:16]
    root = cache_root()
    folder = root / f"{version}-{digest}"
    if kept_to_itself(folder, hashes):
        if stamped(folder, hashes):
            return folder
        if intact(folder, hashes):
            stamp(folder, hashes)
            return folder
    payload = checked(archive, hashes)
    fresh = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=root))
    try:
        unpack(payload, fresh)
        stamp(fresh, hashes)
        if os.path.lexists(folder) and not (
            kept_to_itself(folder, hashes) and intact(folder, hashes)
        ):
            # changed since it was unpacked: set aside, never run
            shutil.rmtree(folder.rename(Path(tempfile.mkdtemp(dir=root)) / "damaged").parent)
        try:
            fresh.rename(folder)
        except OSError:
            # not another run's complete folder
            if not (kept_to_itself(folder, hashes) and intact(folder, hashes)):
                raise
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return folder


def after_the_standard_library(path: list[str], folder: str) -> list[str]:
    """`path` with `folder` right after the standard library's entries (the
    others, PYTHONPATH's among them, after it)."""
    homes = {os.path.realpath(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib")}

    def standard(entry: str) -> bool:
        real = os.path.realpath(entry or ".")
        inside = any(real == home or real.startswith(home + os.sep) for home in homes)
        library = inside and "-packages" not in real
        return library or re.fullmatch(r"python3\d+\.zip", os.path.basename(real)) is not None

    return [e for e in path if standard(e)] + [folder] + [e for e in path if not standard(e)]


def main() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 (any python3 may start the archive)
        raise SystemExit("optchat-spec needs Python 3.11 or later")
    here = Path(__file__).parent
    try:
        with zipfile.ZipFile(here) as archive:
            folder = ready(archive)
    except (OSError, zipfile.BadZipFile, zlib.error, KeyError, ValueError) as error:
        print(f"optchat-spec: cannot unpack the runner: {here}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.path[:] = after_the_standard_library(sys.path[1:], str(folder))
    from bridge.cli import main as run

    raise SystemExit(run())


if __name__ == "__main__":
    main()
