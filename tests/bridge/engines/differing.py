"""An engine that differs from SPEC in every way SPEC 10 can declare, at
once (issue 35): `python -m impl.protocol` under PROFILE, every option at
a value other than SPEC's, and the constants limits of a real JavaScript
engine (limited.py: no CEILING under 8 x NODE, no FLOOR under 4 x NODE,
answered `{"ready": false, "unsupported": {...}}`). Given `--declare` it
declares both, the profile and the limits, in every answer to a header;
undeclared, it declares neither, and every difference shows as a
divergence that is no bug (what `diagnose` must find from nothing)."""

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from limited import LIMITS, too_small  # noqa: E402

from impl import protocol  # noqa: E402
from impl.profile import Profile  # noqa: E402

PROFILE: dict[str, Any] = {
    "trim_lines": True,
    "kind_words": {"user": "you", "unii": "talk", "tool": "ran", "note": "aside"},
    "need_first": False,
    "failure_cap": "none",
    "calls": "self",
    "ahead_in_wait": False,
    "empty_chat": "blank_line",
    "kinds": ["user"],
    "retry": "tick",
    "held_takes_job": True,
    "merge_order": "ready",
    "resume": "self",
    "empty_reply": "fails",
    "not_shorter": "goes_on",
    "retried": "first",
    "zoom_one": "headed",
    "zoom_halves": "bare",
    "zoom_unbuilt": "refused",
    "tolerance": 1.25,
    "cut": "word",
    "ellipsis": "…",
    "overlong": "kept",
    "replies_out": "asks",
    "trim_set": "javascript",
}
"""The engine's real profile (SPEC 10): every option off SPEC. Where an
option has several such values, the one that delivers least of the corpus
(tests/scenarios/delivery.py, `ALL_OPTIONS`, says which and why). Under
`overlong: kept` the chooser cuts no reply, only the source when there is
none (SPEC 10), so its `cut` and `ellipsis` hardly ever act (declared
without `ellipsis` it still agrees on tests/bridge/test_differing.py's
sample): the policies profile, with `overlong: cut`, checks them (the
gate's bridge-policies stage)."""


def main(argv: list[str]) -> None:
    declare = "--declare" in argv
    profile = Profile.from_json(PROFILE)
    session: protocol.Session | None = None
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        if "format" not in request:
            if session is None:
                sys.exit("differing engine: sent an event of a scenario whose constants it refused")
            answer = session.answer(request)
        elif refused := too_small(request["constants"]):
            session, answer = None, {"ready": False, "unsupported": refused}
        else:
            session, answer = protocol.opened(request, profile)
            answer["engine"] = "differing example"
        if "format" in request:
            answer.pop("profile", None)
            if declare:
                answer.update(profile=PROFILE, constants=LIMITS)
        sys.stdout.buffer.write(protocol.compact(answer) + b"\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
