"""A protocol engine that misbehaves on purpose: `faulty.py crash|hang|garbage|short N`
answers like impl.protocol until event N, then crashes, hangs, prints garbage,
or answers without most fields."""

import json
import sys
import time

from impl.constants import Constants
from impl.planner import Planner
from impl.protocol import answer

how, at = sys.argv[1], int(sys.argv[2])
planner = Planner(Constants(**json.loads(sys.stdin.readline())["constants"]))
print(json.dumps({"ready": True}), flush=True)
position = 0
for raw in sys.stdin:
    request = json.loads(raw)
    if position == at and "event" in request:
        if how == "crash":
            print("boom: the engine fell over", file=sys.stderr, flush=True)
            sys.exit(3)
        if how == "hang":
            time.sleep(60)
        if how == "garbage":
            print("hello, I am not JSON", flush=True)
            continue
        if how == "short":
            print(json.dumps({"view": []}), flush=True)
            continue
    print(json.dumps(answer(planner, request, position)), flush=True)
    position += "event" in request
