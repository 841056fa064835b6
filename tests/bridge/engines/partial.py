"""An engine with deliberate differences from SPEC, for `diagnose` to find
(issue 21): `python -m impl.protocol` run with the profile PARTIAL, which it
declares in its ready answer only when given `--declare`. Undeclared, every
difference shows as a divergence that is no bug."""

import sys

from impl import protocol
from impl.profile import Profile

PARTIAL = {"need_first": False, "failure_cap": "none", "ahead_in_wait": False}
"""The engine's real profile (SPEC 10)."""

declare = "--declare" in sys.argv[1:]
profile = Profile.from_json(PARTIAL)


def ready(_profile: Profile, version: int) -> dict:
    answer = {"ready": True, "protocol": 2, "engine": "partial example", "sessions": True}
    return {**answer, "profile": PARTIAL} if declare else answer


protocol.ready = ready
protocol.serve(sys.stdin.buffer, sys.stdout.buffer, profile, 2)
