"""impl.protocol without a timed-out render and without zoom, the way an
engine that lacks them answers: a `timeout` answer without
`render_timed_out_crc`, a detail answer without `render_timed_out`, a
`zoom` answered without its `zoom` field. With `--declare` it declares
what it has (every capability but those two) in its ready answer, and then a
`zoom` sent to it is a fault (the bridge must not send it); `--declare JSON`
declares that JSON value instead."""

import json
import sys

from impl.profile import Profile
from impl.protocol import Session, compact, ready

DECLARED = ["settle_timeout", "compaction_view", "queue_waiting", "replies"]

LACKED = ("render_timed_out_crc", "render_timed_out", "zoom")
"""The answer fields of what it lacks, never in its answers."""


def main(arguments: list[str]) -> None:
    declare = "--declare" in arguments
    declared = json.loads(arguments[-1]) if declare and arguments[-1] != "--declare" else DECLARED
    session = None
    for raw in sys.stdin:
        request = json.loads(raw)
        if "format" in request:
            session = Session(request, Profile())
            answer = ready(Profile())
            if declare:
                answer["capabilities"] = declared
        elif request.get("event") == "zoom" and declare:
            sys.exit("lacking engine: sent a zoom although it declares no zoom")
        else:
            assert session is not None
            answer = session.answer(request)
            for name in LACKED:
                answer.pop(name, None)
        sys.stdout.buffer.write(compact(answer) + b"\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
