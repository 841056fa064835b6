"""The version and the release step (release/version.py, release/cut.py,
RELEASING.md), in a scratch git repository made from a copy of the
project. A build from a commit carries the declared development version
and that commit (`.dirty` with uncommitted changes). `make release
VERSION=X.Y.Z` commits X.Y.Z with CHANGELOG's Unreleased section under
its heading, tags that commit vX.Y.Z, builds the artefacts from it (their
SHA256SUMS checked by sha256sum), pins the zipapp's SHA-256 in the docs
of the tagged commit, and starts the next development version; it refuses
a tree it cannot release with one line and exit 2, changing nothing."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.kits import NOT_SHIPPED, ROOT, bare_env
from tests.packaging.test_install import corpus_version, source_version

pytestmark = pytest.mark.xdist_group("release")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository of one commit holding a copy of the project."""
    repo = tmp_path / "optchat-spec"
    shutil.copytree(ROOT, repo, ignore=NOT_SHIPPED)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Release Test")
    git(repo, "config", "user.email", "release@test.invalid")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the project")
    return repo


def in_repo(repo: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        cwd=repo,
        env={**bare_env(), "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def version_of(pyz: Path) -> str:
    said = subprocess.run(
        [sys.executable, "-I", str(pyz), "--version"], capture_output=True, text=True, check=True
    )
    return said.stdout.split()[1]


@pytest.mark.more  # a release made end to end in a clone: `make test-more`
def test_a_build_carries_its_commit(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert in_repo(repo, sys.executable, "-m", "release", "zipapp", str(out)).returncode == 0
    head = git(repo, "rev-parse", "HEAD")
    assert version_of(out / "optchat-spec.pyz") == f"{source_version()}+g{head[:12]}"
    with (repo / "README.md").open("a") as readme:
        readme.write("\nchanged\n")
    assert in_repo(repo, sys.executable, "-m", "release", "zipapp", str(out)).returncode == 0
    assert version_of(out / "optchat-spec.pyz") == f"{source_version()}+g{head[:12]}.dirty"


@pytest.mark.more  # a release made end to end in a clone: `make test-more`
def test_make_release_tags_builds_pins_and_starts_the_next(repo: Path) -> None:
    version = source_version().split(".dev")[0]
    done = in_repo(repo, "make", "release", f"VERSION={version}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "tag", "-l") == f"v{version}"
    assert git(repo, "status", "--porcelain") == ""
    tagged = f"v{version}"
    assert git(repo, "log", "-1", "--format=%s", tagged) == f"release {version}"
    assert f'__version__ = "{version}"\n' in git(repo, "show", f"{tagged}:bridge/__init__.py")
    log = git(repo, "show", f"{tagged}:CHANGELOG.md")
    assert f"\n## {version}: corpus version {corpus_version()}\n" in log
    assert "## Unreleased" not in log
    # The artefacts, from the tag: SHA256SUMS right, the zipapp a release.
    dist = repo / "dist"
    pyz = dist / "optchat-spec.pyz"
    assert (dist / f"optchat_spec-{version}-py3-none-any.whl").exists()
    check = subprocess.run(["sha256sum", "--check", "SHA256SUMS"], cwd=dist, capture_output=True)
    assert check.returncode == 0 and check.stdout.count(b": OK") == 3
    assert version_of(pyz) == version
    sha256 = hashlib.sha256(pyz.read_bytes()).hexdigest()
    for doc in ("docs/ci.md", "docs/ci-local.sh"):
        before = git(repo, "show", f"{tagged}~1:{doc}")
        pins = len(re.findall(r'OPTCHAT_SPEC_SHA256(: "|:-)SET_BY', before))
        assert pins >= 1, doc
        text = git(repo, "show", f"{tagged}:{doc}")
        assert text.count(sha256) == pins, doc
        assert not re.search(r'OPTCHAT_SPEC_SHA256(: "|:-)SET_BY', text), doc
    # The next version in development, with an Unreleased section of its own.
    major, minor, _ = version.split(".")
    following = f"{major}.{int(minor) + 1}.0.dev0"
    assert git(repo, "log", "-1", "--format=%s") == f"start {following}"
    assert f'__version__ = "{following}"\n' in (repo / "bridge" / "__init__.py").read_text()
    headings = re.findall(r"^## .*$", (repo / "CHANGELOG.md").read_text(), re.M)
    assert headings[:2] == ["## Unreleased", f"## {version}: corpus version {corpus_version()}"]


def refused(repo: Path, version: str) -> str:
    """The release step's one line, having changed nothing."""
    before = git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    done = in_repo(repo, sys.executable, "-m", "release", "cut", version)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")) == before
    assert git(repo, "tag", "-l") == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr


def test_the_release_step_refuses_what_it_cannot_release(repo: Path) -> None:
    version = source_version().split(".dev")[0]
    assert "not a version X.Y.Z" in refused(repo, "0.3")
    assert "not 9.9.9.devN" in refused(repo, "9.9.9")
    log = repo / "CHANGELOG.md"
    text = log.read_text()
    emptied = re.sub(r"(## Unreleased\n).*?(\n## )", r"\1\2", text, count=1, flags=re.S)
    log.write_text(emptied)
    assert "uncommitted changes" in refused(repo, version)
    git(repo, "commit", "-q", "-am", "nothing new")
    assert "Unreleased section is empty" in refused(repo, version)
