"""An engine shaped like a real JavaScript one (issue 40), for `diagnose`
to find from nothing: `python -m impl.protocol` under PROFILE: it starts
its own calls (`calls: self`), writes its own words for two kinds
(`kind_words`), queues a node let go after a failure first (`retried`),
and chooses a line with four options of its own (`tolerance`, a `cut` at
a word, an `ellipsis`, and replies that run out asking for more,
`replies_out`). Given `--declare` it declares that profile in its ready
answer; undeclared, every difference shows as a divergence that is no bug."""

import sys
from typing import Any

from impl import protocol
from impl.profile import Profile

PROFILE: dict[str, Any] = {
    "calls": "self",
    "kind_words": {"unii": "talk", "user": "you"},
    "retried": "first",
    "tolerance": 1.25,
    "cut": "word",
    "ellipsis": "…",
    "replies_out": "asks",
}
"""The engine's real profile (SPEC 10)."""


def main(argv: list[str]) -> None:
    declare = "--declare" in argv

    def ready(_profile: Profile) -> dict[str, Any]:
        answer = {"ready": True, "protocol": 2, "engine": "self-starting example", "sessions": True}
        return {**answer, "profile": PROFILE} if declare else answer

    protocol.ready = ready
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, Profile.from_json(PROFILE))


if __name__ == "__main__":
    main(sys.argv[1:])
