"""The toolchains the starter adapters need (examples/): a test that needs
one is skipped, saying why, when it is missing, unless
OPTCHAT_REQUIRE_TOOLCHAINS is set (.ci/run installs them and sets it):
then it fails, so that CI never skips them."""

from __future__ import annotations

import os
import shutil

import pytest


def toolchain(command: str) -> str:
    """The path of `command` (`node`, `cargo`)."""
    found = shutil.which(command)
    if found is None:
        if os.environ.get("OPTCHAT_REQUIRE_TOOLCHAINS"):
            pytest.fail(f"{command} is not installed and OPTCHAT_REQUIRE_TOOLCHAINS is set")
        pytest.skip(f"needs {command} (Debian's nodejs and cargo; .ci/run installs them)")
    return found
