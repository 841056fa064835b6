"""The release step (RELEASING.md): `X.Y.Z` set as the version in one
commit, tagged `vX.Y.Z`, its artefacts built from that commit, then the
next version in development in a commit of its own."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

from release import dist
from release.version import RELEASE, SOURCE, declared, git, stamp

UNRELEASED = "## Unreleased\n"
PINS = (Path("docs") / "ci.md", Path("docs") / "ci-local.sh")
"""The documents that pin the zipapp of the newest release by its SHA-256."""
PIN = re.compile(
    r'(OPTCHAT_SPEC_VERSION(?::-|: "))\d+\.\d+\.\d+|(OPTCHAT_SPEC_SHA256(?::-|: "))\w+'
)
"""`OPTCHAT_SPEC_VERSION: "X.Y.Z"` and `OPTCHAT_SPEC_SHA256: "HEX"` in a
workflow, `${OPTCHAT_SPEC_VERSION:-X.Y.Z}` and the like in a script."""


class NotReleasable(Exception):
    """Why the tree cannot be released now (one line)."""


def corpus_version(root: Path) -> int:
    return int(json.loads((root / "scenarios/expected/CORPUS.json").read_text())["version"])


def changelog(text: str, version: str, corpus: int) -> str:
    """CHANGELOG.md with its Unreleased section headed as `version`."""
    if UNRELEASED not in text:
        raise NotReleasable("CHANGELOG.md has no '## Unreleased' section")
    after = text.split(UNRELEASED, 1)[1]
    if not after.split("\n## ", 1)[0].strip():
        raise NotReleasable("CHANGELOG.md's Unreleased section is empty: nothing to release")
    return text.replace(UNRELEASED, f"## {version}: corpus version {corpus}\n", 1)


def pinned(text: str, version: str, sha256: str) -> str:
    """A document's pins of the zipapp set to `version` and `sha256`."""

    def one(found: re.Match[str]) -> str:
        return found.group(1) + version if found.group(1) else found.group(2) + sha256

    return PIN.sub(one, text)


def following(version: str) -> str:
    """The next version in development: the next minor's first dev."""
    major, minor, _ = version.split(".")
    return f"{major}.{int(minor) + 1}.0.dev0"


def run_git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True)


def cut(root: Path, version: str, out: Path) -> list[Path]:
    """Release `version` from the clean tree `root`; the artefacts, in `out`."""
    if not RELEASE.match(version):
        raise NotReleasable(f"{version!r} is not a version X.Y.Z")
    if git(root, "status", "--porcelain", "--untracked-files=no") != "":
        raise NotReleasable("the tree has uncommitted changes (or is not a git clone)")
    if git(root, "rev-parse", "-q", "--verify", f"refs/tags/v{version}") is not None:
        raise NotReleasable(f"tag v{version} exists already")
    if not declared(root).startswith(f"{version}.dev"):
        raise NotReleasable(f"bridge/__init__.py holds {declared(root)}, not {version}.devN")
    log, init = root / "CHANGELOG.md", root / SOURCE
    released = changelog(log.read_text(), version, corpus_version(root))
    try:
        log.write_text(released)
        init.write_text(stamp(init.read_text(), version))
        # The zipapp does not hold the documents that pin it: its checksum is
        # known before they are written, and the same when built from the tag.
        sha256 = hashlib.sha256(dist.zipapp.build(out, root).read_bytes()).hexdigest()
        for doc in PINS:
            (root / doc).write_text(pinned((root / doc).read_text(), version, sha256))
        run_git(root, "commit", "-q", "-am", f"release {version}")
    except BaseException:
        run_git(root, "checkout", "--", log.name, SOURCE.as_posix(), *map(str, PINS))
        raise
    run_git(root, "tag", "-a", f"v{version}", "-m", f"optchat-spec {version}")
    built = dist.build(out, root)
    if dist.sums(built)[dist.zipapp.NAME] != sha256:
        raise NotReleasable("the zipapp built from the tag differs from the one pinned")
    init.write_text(stamp(init.read_text(), following(version)))
    log.write_text(log.read_text().replace("\n## ", f"\n{UNRELEASED}\n## ", 1))
    run_git(root, "commit", "-q", "-am", f"start {following(version)}")
    return built
