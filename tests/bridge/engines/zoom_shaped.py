"""An engine shaped like a real Rust one (issue 40), for `diagnose` to
find from nothing: `python -m impl.protocol` under PROFILE: `zoom(id, 1)`
headed, a node's halves bare, a zoom over an unbuilt half refused
(`zoom_one`, `zoom_halves`, `zoom_unbuilt`), a best reply too long kept
whole (`overlong`), white space the ASCII set (`trim_set`); and, as that
engine, it answers a timed-out render with its plain render: it has
`settle_timeout` but not `timed_out_render` (as distant.py). Given
`--declare` it declares that profile and its capabilities in its ready
answer; undeclared, every difference shows as a divergence that is no bug."""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from distant import plain_timed_out_render  # noqa: E402

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PROFILE: dict[str, Any] = {
    "zoom_one": "headed",
    "zoom_halves": "bare",
    "zoom_unbuilt": "refused",
    "overlong": "kept",
    "trim_set": "ascii",
}
"""The engine's real profile (SPEC 10)."""
CAPABILITIES = ["settle_timeout", "zoom", "compaction_view", "queue_waiting", "replies"]
"""What it implements (bridge/PROTOCOL.md, Capabilities): not `timed_out_render`."""


def main(argv: list[str]) -> None:
    declare = "--declare" in argv

    def ready(_profile: Profile) -> dict[str, Any]:
        answer = {"ready": True, "protocol": 2, "engine": "zoom-shaped example", "sessions": True}
        return {**answer, "profile": PROFILE, "capabilities": CAPABILITIES} if declare else answer

    protocol.ready = ready
    plain_timed_out_render()
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, Profile.from_json(PROFILE))


if __name__ == "__main__":
    main(sys.argv[1:])
