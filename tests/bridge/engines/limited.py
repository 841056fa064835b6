"""impl.protocol with the limits of a real JavaScript engine (elephant-memory):
it takes no CEILING under 8 x NODE and no FLOOR under 4 x NODE, and answers
such a header `{"ready": false, "unsupported": {...}}`, as that engine's
adapter does. With `--declare` it declares those limits in every answer to
a header (`"constants"`, bridge/PROTOCOL.md), ready or not; an event sent
after a header outside them then ends it with an error (the bridge must
send none). `--declare JSON` declares that JSON value instead."""

import json
import sys
from collections.abc import Callable
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


Opened = Callable[[dict[str, Any]], tuple[Session | None, dict[str, Any]]]


def serve(opened: Opened, declared: dict[str, Any] | None, who: str) -> None:
    """Answer a header outside the limits not ready, another as `opened`
    does, adding the fields `declared` (if any) to every answer to a header;
    then each event."""
    session = None
    for raw in sys.stdin:
        request = json.loads(raw)
        if "format" not in request:
            if session is None:
                sys.exit(f"{who}: sent an event of a scenario whose constants it refused")
            answer = session.answer(request)
        elif refused := too_small(request["constants"]):
            session, answer = None, {"ready": False, "unsupported": refused}
        else:
            session, answer = opened(request)
        if declared is not None and "format" in request:
            answer.update(declared)
        sys.stdout.buffer.write(compact(answer) + b"\n")
        sys.stdout.flush()


def main(argv: list[str]) -> None:
    declared = None
    if "--declare" in argv:
        declared = {"constants": LIMITS if argv[-1] == "--declare" else json.loads(argv[-1])}
    serve(lambda header: (Session(header, Profile()), ready(Profile())), declared, "limited engine")


if __name__ == "__main__":
    main(sys.argv[1:])
