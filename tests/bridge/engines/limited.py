"""impl.protocol with the limits of a real JavaScript engine (elephant-memory):
it takes no CEILING under 8 x NODE and no FLOOR under 4 x NODE, and answers
such a header `{"ready": false, "unsupported": {...}}`, as that engine's
adapter does. With `--declare` it declares those limits in every answer to
a header (`"constants"`, bridge/PROTOCOL.md), ready or not; an event sent
after a header outside them then ends it with an error (the bridge must
send none). `--declare JSON` declares that JSON value instead."""

import json
import sys
from typing import Any

from impl.profile import Profile
from impl.protocol import Session, compact, ready

LIMITS = {
    "ceiling": {"min": {"times": 8, "of": "node"}},
    "floor": {"min": {"times": 4, "of": "node"}},
}
"""The limits, as the engine declares them."""


def too_small(constants: dict[str, Any]) -> dict[str, str]:
    """Each budget under its multiple of NODE, and why, as the engine says it."""
    node = constants["node"]
    return {
        name: f"{name.upper()} {constants[name]} is under {times} x NODE ({times * node})"
        for name, times in (("ceiling", 8), ("floor", 4))
        if constants[name] < times * node
    }


def main(argv: list[str]) -> None:
    declared = None
    if "--declare" in argv:
        declared = LIMITS if argv[-1] == "--declare" else json.loads(argv[-1])
    session = None
    for raw in sys.stdin:
        request = json.loads(raw)
        if "format" not in request:
            if session is None:
                sys.exit("limited engine: sent an event of a scenario whose constants it refused")
            answer = session.answer(request)
        elif refused := too_small(request["constants"]):
            session, answer = None, {"ready": False, "unsupported": refused}
        else:
            session, answer = Session(request, Profile()), ready(Profile())
        if declared is not None and "format" in request:
            answer["constants"] = declared
        sys.stdout.buffer.write(compact(answer) + b"\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
