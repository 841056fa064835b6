"""`make dist`: the release artefacts in one folder, the wheel, the sdist
and the zipapp, with SHA256SUMS (`sha256sum -c` reads it)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from release import wheel, zipapp

SUMS = "SHA256SUMS"


def build(out: Path, root: Path) -> list[Path]:
    """Every artefact of `root` into `out` (emptied of older ones first)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("*.whl"), *out.glob("*.tar.gz"), out / zipapp.NAME, out / SUMS]:
        old.unlink(missing_ok=True)
    made = [
        out / wheel.build_wheel(out, root),
        out / wheel.build_sdist(out, root),
        zipapp.build(out, root),
    ]
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n" for p in made]
    (out / SUMS).write_text("".join(lines))
    return made


def sums(made: list[Path]) -> dict[str, str]:
    """{file name: SHA-256} as SHA256SUMS lists them."""
    folder = made[0].parent
    return {
        name: digest
        for digest, name in (line.split("  ") for line in (folder / SUMS).read_text().splitlines())
    }
