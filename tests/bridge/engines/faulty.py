"""A protocol engine that misbehaves on purpose: `faulty.py crash|hang|garbage|short N`
answers like impl.protocol until event N, then crashes, hangs, prints garbage,
or answers without most fields."""

import json
import sys
import time

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Planner
from impl.protocol import apply, observation

how, at = sys.argv[1], int(sys.argv[2])
planner = Planner(Constants(**json.loads(sys.stdin.readline())["constants"]))
print(json.dumps({"ready": True}), flush=True)
for position, raw in enumerate(sys.stdin):
    if position == at:
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
    try:
        apply(planner, json.loads(raw), position)
        print(json.dumps(observation(planner)), flush=True)
    except Refused as refused:
        print(json.dumps({**observation(planner), "refused": refused.rule}), flush=True)
