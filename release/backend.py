"""The PEP 517 build backend of optchat-spec (pyproject.toml,
`[build-system]`), in the tree and on the standard library alone.

Why not setuptools: `pip install .` must work with no network. Under build
isolation pip installs the backend's requirements first, which fails with
`--no-index` on a machine without them; and with `--no-build-isolation` the
setuptools that Python 3.11 bundles (65) rejects pyproject's SPDX `license`.
A backend that requires nothing builds anywhere Python 3.11 runs, and it
ships exactly the files `release.files` lists. pip runs the hooks in the
project's (or the unpacked sdist's) root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from release import wheel


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return wheel.build_wheel(Path(wheel_directory), Path.cwd())


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return wheel.build_editable(Path(wheel_directory), Path.cwd())


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    return wheel.build_sdist(Path(sdist_directory), Path.cwd())
