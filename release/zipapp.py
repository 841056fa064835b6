"""optchat-spec.pyz: the runner in one file (`python3 optchat-spec.pyz
corpus --engine ...`), for any machine with Python 3.11 and nothing else.
A zip archive holding `__main__.py` (release/unpack.py), the runner's files
(`release.files.runner`, bridge/__init__.py stamped with the version) under
`runner/`, and `runner.json`, their hashes; byte for byte the same for the
same sources (release/wheel.py, `write_zip`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from release import files, unpack
from release.version import stamped
from release.wheel import payload, write_zip

NAME = "optchat-spec.pyz"
SHEBANG = b"#!/usr/bin/env python3\n"


def build(directory: Path, root: Path = files.ROOT) -> Path:
    """optchat-spec.pyz of `root` in `directory`; its path."""
    version = stamped(root)
    directory.mkdir(parents=True, exist_ok=True)
    members = payload(files.runner(root), version)
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in members}
    manifest = json.dumps({"version": version, "files": hashes}, indent=1, sort_keys=True)
    target = directory / NAME
    write_zip(
        target,
        [
            ("__main__.py", Path(unpack.__file__).read_bytes()),
            (unpack.MANIFEST, manifest.encode()),
            *((unpack.PAYLOAD + name, data) for name, data in members),
        ],
        prefix=SHEBANG,
    )
    target.chmod(0o755)
    return target
