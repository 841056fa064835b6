"""An engine with deliberate differences from SPEC, for `diagnose` to find
(issue 21): `python -m impl.protocol` with the policies of
scenarios/profiles/partial.json, a kept profile with its own transcripts
(another line chooser: an empty reply fails the call; a failed node retried
only after RETRY), and without a timed-out render or zoom (it answers as
tests/bridge/engines/lacking.py does: no `render_timed_out_crc`, no
`render_timed_out`, no `zoom`). Given `--declare` it declares that profile
and its capabilities (all but `timed_out_render` and `zoom`) in its ready
answer; undeclared, every difference shows as a divergence that is no bug.
With `--bug` it also has the planted bug of free_leaf_bug.py."""

import json
import os
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__" and "--bug" in sys.argv:  # an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"  # plain Python, so that the bug's patch reaches the planner
sys.path.insert(0, str(Path(__file__).parent))

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PROFILE = Path(__file__).parents[3] / "scenarios" / "profiles" / "partial.json"
PARTIAL = json.loads(PROFILE.read_text(encoding="utf-8"))
"""The engine's real profile (SPEC 10)."""
CAPABILITIES = ["settle_timeout", "compaction_view", "queue_waiting", "replies"]
"""What it implements (bridge/PROTOCOL.md, Capabilities): not `timed_out_render`, not `zoom`."""
LACKED = ("render_timed_out_crc", "render_timed_out", "zoom")
"""The answer fields of what it lacks, never in its answers."""


def main(argv: list[str]) -> None:
    declare = "--declare" in argv

    def ready(_profile: Profile) -> dict:
        answer = {"ready": True, "protocol": 2, "engine": "partial example", "sessions": True}
        return {**answer, "profile": PARTIAL, "capabilities": CAPABILITIES} if declare else answer

    answer = protocol.Session.answer

    def without(self: protocol.Session, request: dict[str, Any]) -> dict[str, Any]:
        if declare and request.get("event") == "zoom":
            sys.exit("partial engine: sent a zoom although it declares no zoom")
        out = answer(self, request)
        for name in LACKED:
            out.pop(name, None)
        return out

    if "--bug" in argv:
        import free_leaf_bug

        free_leaf_bug.plant()
    protocol.ready = ready
    protocol.Session.answer = without  # type: ignore[method-assign]
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, Profile.from_json(PARTIAL))


if __name__ == "__main__":
    main(sys.argv[1:])
