"""The version a build carries. Its one source is `__version__` in
bridge/__init__.py, which only the release step (`python -m release cut`,
RELEASING.md) sets to a release `X.Y.Z`, in the commit it tags `vX.Y.Z`;
every other commit holds the next version in development, `X.Y.Z.devN`.
A build from a git clone stamps a development version with its commit,
`0.3.0.dev0+g1a2b3c4d5e6f` (`.dirty` when the tree has uncommitted
changes), so that `optchat-spec --version` says it is not a release; a
build from an sdist keeps the version the sdist was made with."""

from __future__ import annotations

import re
import subprocess
from email.parser import HeaderParser
from pathlib import Path

SOURCE = Path("bridge") / "__init__.py"
DECLARED = re.compile(r'^__version__ = "([^"]+)"$', re.M)
RELEASE = re.compile(r"^\d+\.\d+\.\d+$")


def declared(root: Path) -> str:
    """`__version__` as bridge/__init__.py says it."""
    found = DECLARED.search((root / SOURCE).read_text(encoding="utf-8"))
    if not found:
        raise ValueError(f'{root / SOURCE}: no line `__version__ = "..."`')
    return found.group(1)


def git(root: Path, *args: str) -> str | None:
    """git's output in `root`, or None when `root` is not the top of a git
    work tree (an unpacked sdist, a copy) or git is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit(root: Path) -> str | None:
    """`g` and HEAD's first 12 hex digits, `.dirty` after them when tracked
    files differ from it; None outside a git work tree of its own."""
    top = git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():
        return None
    head = git(root, "rev-parse", "--short=12", "HEAD")
    if head is None:
        return None
    dirty = git(root, "status", "--porcelain", "--untracked-files=no")
    return f"g{head}" + (".dirty" if dirty else "")


def stamped(root: Path) -> str:
    """The version a build from `root` carries (module docstring)."""
    pkg_info = root / "PKG-INFO"
    if pkg_info.is_file():
        return HeaderParser().parsestr(pkg_info.read_text(encoding="utf-8"))["Version"]
    version = declared(root)
    if RELEASE.match(version):
        return version
    where = commit(root)
    return f"{version}+{where}" if where else version


def stamp(source: str, version: str) -> str:
    """bridge/__init__.py's text with `version` as `__version__`."""
    text, count = DECLARED.subn(f'__version__ = "{version}"', source, count=1)
    if count != 1:
        raise ValueError('bridge/__init__.py: no line `__version__ = "..."`')
    return text
