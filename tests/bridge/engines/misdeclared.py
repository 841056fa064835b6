"""`python -m impl.protocol` running under one profile and declaring another
(or nothing): `misdeclared.py RUNS [DECLARES]`, each a JSON object of SPEC 10
options; without DECLARES it declares no profile. For `diagnose` to find
the options an engine does not declare (`kind_words` guessed from its
texts) and to name a declared option that its answers contradict."""

import json
import sys
from typing import Any

from impl import protocol
from impl.profile import Profile


def main(argv: list[str]) -> None:
    runs = Profile.from_json(json.loads(argv[0]))
    said = json.loads(argv[1]) if len(argv) > 1 else None

    def ready(_profile: Profile) -> dict[str, Any]:
        answer = {"ready": True, "protocol": 2, "engine": "misdeclared example", "sessions": True}
        return answer if said is None else {**answer, "profile": said}

    protocol.ready = ready
    protocol.serve(sys.stdin.buffer, sys.stdout.buffer, runs)


if __name__ == "__main__":
    main(sys.argv[1:])
