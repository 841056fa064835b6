"""optchat-spec.pyz tampered with or damaged, and its cache folder written
into (issue 36, item 7; release/unpack.py): a member that is not what
runner.json says, a runner.json of another shape, or names that leave the
folder (`../`, absolute) are one line and exit 2, nothing unpacked, nothing
written outside the cache; the folder the runner runs from is only the
user's (0700) and holds only the payload; a module dropped into it shadows
neither the standard library for the runner nor for the reference engine
it starts."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from release import unpack, zipapp
from tests.packaging.test_zipapp import PYTHON, cached, run

pytestmark = pytest.mark.xdist_group("zipapp")
"""Beside tests/packaging/test_zipapp.py: one zipapp built for both."""

Members = dict[str, bytes]


@pytest.fixture(scope="module")
def members(built: Path) -> Members:
    """The zipapp's members, read once."""
    with zipfile.ZipFile(built) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def rebuilt(pyz: Path, members: Members) -> Callable[[Callable[[Members], None]], Path]:
    """What makes the zipapp again in its place, its members changed by a
    function (stored, not compressed: cheaper, and as valid)."""

    def make(change: Callable[[Members], None]) -> Path:
        changed = dict(members)
        change(changed)
        with pyz.open("wb") as out:
            out.write(zipapp.SHEBANG)
            with zipfile.ZipFile(out, "w") as archive:
                for name, data in changed.items():
                    archive.writestr(name, data)
        return pyz

    return make


Rebuilt = Callable[[Callable[[Members], None]], Path]


def manifest(members: Members) -> dict:  # type: ignore[type-arg]
    return json.loads(members[unpack.MANIFEST])  # type: ignore[no-any-return]


def listed(members: Members, name: str, data: bytes, version: str | None = None) -> None:
    """`name` added to the payload and to runner.json with its true hash."""
    said = manifest(members)
    said["files"][name] = hashlib.sha256(data).hexdigest()
    if version is not None:
        said["version"] = version
    members[unpack.MANIFEST] = json.dumps(said).encode()
    members[unpack.PAYLOAD + name] = data


def refused(pyz: Path, said: str) -> None:
    """Exit 2, one line saying `said`, and no folder unpacked."""
    done = run(pyz, "--version")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("optchat-spec: cannot unpack the runner: ") and said in line, line
    root = pyz.parent.parent / "home" / ".cache" / "optchat-spec"
    assert not root.exists() or cached(pyz) == [], "something was unpacked"


def test_a_member_that_is_not_what_runner_json_says_is_exit_2(rebuilt: Rebuilt) -> None:
    def changed(members: Members) -> None:
        members[unpack.PAYLOAD + "bridge/PROTOCOL.md"] += b"\nchanged\n"

    refused(rebuilt(changed), "bridge/PROTOCOL.md is damaged")


@pytest.mark.parametrize(
    "listing",
    [
        b"[]",
        b"not JSON",
        b'{"version": "1", "files": []}',
        b'{"version": 1, "files": {}}',
        b'{"version": "1"}',
        b'{"version": "1", "files": {"bridge/x.py": 5}}',
        b'{"version": "1", "files": {"bridge/x.py": "not a hash"}}',
        None,
    ],
)
def test_a_runner_json_of_another_shape_is_exit_2(rebuilt: Rebuilt, listing: bytes | None) -> None:
    def changed(members: Members) -> None:
        if listing is None:
            del members[unpack.MANIFEST]
        else:
            members[unpack.MANIFEST] = listing

    refused(rebuilt(changed), "runner.json")


@pytest.mark.parametrize(
    "name", ["../../escaped.py", "bridge/../../../escaped.py", "{tmp}/escaped.py", ".pth", "a//b"]
)
def test_a_name_that_leaves_the_folder_is_refused_before_anything_is_written(
    pyz: Path, rebuilt: Rebuilt, name: str
) -> None:
    name = name.replace("{tmp}", str(pyz.parent.parent))

    def changed(members: Members) -> None:
        listed(members, name, b"print('escaped')\n")

    refused(rebuilt(changed), "not a name the payload may hold")
    assert not [p for p in pyz.parent.parent.rglob("escaped.py")], "written outside"


def test_a_version_that_leaves_the_cache_is_refused(pyz: Path, rebuilt: Rebuilt) -> None:
    def changed(members: Members) -> None:
        said = manifest(members)
        said["version"] = "../../../outside"
        members[unpack.MANIFEST] = json.dumps(said).encode()

    refused(rebuilt(changed), "version")
    assert not list(pyz.parent.parent.glob("outside*")), "unpacked outside the cache"


def test_a_module_dropped_into_the_cache_shadows_nothing(unpacked_pyz: Path) -> None:
    """`argparse.py` for the runner (it imports argparse once unpacked) and
    `json.py` for the reference engine it starts (PYTHONPATH is the folder)."""
    assert run(unpacked_pyz, "--version").returncode == 0
    (folder,) = cached(unpacked_pyz)
    marker = unpacked_pyz.parent.parent / "shadowed"
    (folder / "argparse.py").write_text("raise SystemExit(99)\n")
    (folder / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(98)\n")
    done = run(unpacked_pyz, "replay", "empty_chat", "--engine", "reference")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists(), "the engine imported the dropped json.py"
    assert cached(unpacked_pyz) == [folder]
    held = sorted(p.name for p in folder.iterdir())
    assert held == [unpack.STAMP, "bridge", "impl", "model", "scenarios"], held


def test_the_folder_is_the_users_alone_and_one_others_may_write_is_not_run(pyz: Path) -> None:
    home = pyz.parent.parent / "home"
    done = subprocess.run(
        [str(PYTHON), "-I", zipapp.NAME, "--version"],
        cwd=pyz.parent,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        preexec_fn=lambda: os.umask(0),  # noqa: PLW1509 (the child's umask only)
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (folder,) = cached(pyz)
    assert folder.stat().st_mode & 0o777 == 0o700
    cli = folder / "bridge" / "cli" / "__init__.py"
    folder.chmod(0o777)  # anyone could have changed a file, or added one
    again = run(pyz, "--version")
    assert again.returncode == 0, again.stderr
    assert cached(pyz) == [folder] and folder.stat().st_mode & 0o777 == 0o700
    assert cli.is_file()


def test_the_unpacked_folder_comes_after_the_standard_library(tmp_path: Path) -> None:
    """Even a module that got into the folder after it was checked is not
    imported in a standard module's stead: the folder is searched after the
    standard library, and before what else is on the path."""
    import importlib.machinery
    import sys

    (tmp_path / "argparse.py").write_text("raise SystemExit(99)\n")
    (tmp_path / "bridge").mkdir()
    (tmp_path / "bridge" / "__init__.py").write_text("")
    path = unpack.after_the_standard_library(sys.path[1:], str(tmp_path))
    found = importlib.machinery.PathFinder.find_spec("argparse", path)
    assert found is not None and found.origin is not None
    assert Path(found.origin).parent != tmp_path
    ours = importlib.machinery.PathFinder.find_spec("bridge", path)
    assert ours is not None and ours.origin == str(tmp_path / "bridge" / "__init__.py")
    assert sorted(path) == sorted([*sys.path[1:], str(tmp_path)])
