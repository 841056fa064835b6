"""An engine far from SPEC, for `diagnose` to find from nothing (issue 34):
`python -m impl.protocol` under PROFILE (seven options, `kind_words` among
them, a profile with no transcripts kept: the model answers for it, as
for a real engine's), answering a timed-out render with its plain render
(`render_timed_out_crc` and `render_timed_out` are the plain render's, as
an engine without `timed_out_render` that answers the field anyway).
Eight differences in all. Given `--declare` it declares that profile and
its capabilities (all but `timed_out_render`) in its ready answer;
undeclared, every difference shows as a divergence that is no bug. With
`--ahead-bug` it also has the planted off-by-one bug of ahead_bug.py, no
declared difference."""

import os
import sys
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
if __name__ == "__main__" and "--ahead-bug" in sys.argv:  # an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"  # plain Python, so that the bug's patch reaches the planner

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PROFILE: dict[str, Any] = {
    "kind_words": {"unii": "talk"},
    "retry": "tick",
    "held_takes_job": True,
    "merge_order": "ready",
    "empty_chat": "blank_line",
    "empty_reply": "fails",
    "not_shorter": "goes_on",
}
"""The engine's real profile (SPEC 10)."""
CAPABILITIES = ["settle_timeout", "zoom", "compaction_view", "queue_waiting", "replies"]
"""What it implements (bridge/PROTOCOL.md, Capabilities): not `timed_out_render`."""


def plain(session: protocol.Session, out: dict[str, Any]) -> dict[str, Any]:
    """An answer of `session`'s with a timed-out render's fields
    (`render_timed_out_crc`, `render_timed_out`) its plain render's."""
    if "render_timed_out_crc" in out:
        out["render_timed_out_crc"] = zlib.crc32(session.planner.render().encode("utf-8"))
    if "render_timed_out" in out:
        out["render_timed_out"] = out["render"]
    return out


def plain_timed_out_render() -> None:
    """Make the engine in this process answer a timed-out render with its
    plain render (`plain`)."""
    answer = protocol.Session.answer

    def plainly(self: protocol.Session, request: dict[str, Any]) -> dict[str, Any]:
        return plain(self, answer(self, request))

    protocol.Session.answer = plainly  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    declare = "--declare" in argv

    def ready(profile: Profile) -> dict[str, Any]:
        answer = {"ready": True, "protocol": 2, "engine": "distant example", "sessions": True}
        return {**answer, "profile": PROFILE, "capabilities": CAPABILITIES} if declare else answer

    if "--ahead-bug" in argv:
        import ahead_bug

        ahead_bug.plant()
    protocol.ready = ready
    plain_timed_out_render()
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, Profile.from_json(PROFILE))


if __name__ == "__main__":
    main(sys.argv[1:])
