"""An engine with deliberate differences from SPEC, for `diagnose` to find
(issue 21): `python -m impl.protocol` run with the profile of partial.json,
which it declares in its ready answer only when given `--declare`;
undeclared, every difference shows as a divergence that is no bug. With
`--bug` it also has the planted bug of free_leaf_bug.py."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
if "--bug" in sys.argv:
    import free_leaf_bug  # first: it makes the engine plain Python

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PARTIAL = json.loads((Path(__file__).parent / "partial.json").read_text(encoding="utf-8"))
"""The engine's real profile (SPEC 10)."""


def main(argv: list[str]) -> None:
    declare = "--declare" in argv

    def ready(_profile: Profile, _version: int) -> dict:
        answer = {"ready": True, "protocol": 2, "engine": "partial example", "sessions": True}
        return {**answer, "profile": PARTIAL} if declare else answer

    if "--bug" in argv:
        free_leaf_bug.plant()  # type: ignore[possibly-undefined]
    protocol.ready = ready
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, Profile.from_json(PARTIAL), 2)


if __name__ == "__main__":
    main(sys.argv[1:])
