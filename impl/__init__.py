"""The production engine of optchat-spec: planner, storage, library API and
compactor (SPEC 1-7). It never imports `model/`, `laws/` or `bridge/`.

The planner's modules (`PLANNER`) are plain Python, and they are also the
source of a C build: `python -m impl.build` (run by `make engine`, which
`make test`, `make bridge` and `make bench` run first) compiles them with
mypyc into `build/engine/`, with `SCANNER` made from its own C source
(impl/textscan.c, see there why), beside the hash of the sources it was made from.
That build is loaded instead of the plain modules only while it matches the
sources here, byte for byte, and `OPTCHAT_PURE` is unset; an edited source
runs as plain Python until it is built again. `COMPILED` says which is
running. The bridge compares whichever runs with the model.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

PLANNER = (
    "constants",
    "errors",
    "text",
    "profile",
    "digest",
    "tree",
    "render",
    "line",
    "view",
    "queue",
    "planner",
)
"""The modules of the planner proper, the ones the C build compiles."""

SCANNER = "textscan"
"""The planner's module that the C build makes from hand-written C
(`textscan.c`) rather than from its Python, the reference."""

HERE = Path(__file__).resolve().parent
BUILD = HERE.parent / "build" / "engine" / "impl"
"""Where `python -m impl.build` puts the compiled planner and its `SOURCES` hash."""


def sources_hash() -> str:
    """The SHA-256 of the planner's sources (`PLANNER` in order, then
    `SCANNER`'s Python and C) and of this interpreter's extension suffix:
    a build is for one Python."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag} {EXTENSION_SUFFIXES[0]}".encode())
    for source in [*(f"{module}.py" for module in PLANNER), f"{SCANNER}.py", f"{SCANNER}.c"]:
        digest.update((HERE / source).read_bytes())
    return digest.hexdigest()


def _built_from_these_sources() -> bool:
    """Whether the C build holds every planner module and was made from
    these sources by this Python."""
    try:
        recorded = (BUILD / "SOURCES").read_text(encoding="utf-8").strip()
    except OSError:
        return False
    suffix = EXTENSION_SUFFIXES[0]
    present = all((BUILD / f"{module}{suffix}").is_file() for module in (*PLANNER, SCANNER))
    return present and recorded == sources_hash()


COMPILED = not os.environ.get("OPTCHAT_PURE") and _built_from_these_sources()
"""Whether the planner runs from the C build (see above)."""

if COMPILED:
    __path__.insert(0, str(BUILD))
