"""A protocol 2 engine that takes only NODE 512 and has no zoom: it refuses
other headers as unsupported and answers a zoom event so; otherwise it is
impl.protocol. With --numbered it says a number where its reason belongs."""

import json
import sys

from impl.profile import Profile
from impl.protocol import Session, compact, ready

session = None
for raw in sys.stdin:
    request = json.loads(raw)
    if "format" in request:
        node = request["constants"]["node"]
        if node != 512:
            answer = {"ready": False, "unsupported": {"node": f"NODE is 512 here, not {node}"}}
        else:
            session = Session(request, Profile())
            answer = {**ready(Profile()), "sessions": False}
    elif request.get("event") == "zoom":
        answer = {"unsupported": 7 if "--numbered" in sys.argv else "zoom"}
    else:
        assert session is not None
        answer = session.answer(request)
    sys.stdout.buffer.write(compact(answer) + b"\n")
    sys.stdout.flush()
