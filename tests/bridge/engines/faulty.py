"""A protocol engine that misbehaves on purpose: `faulty.py HOW N` answers
like impl.protocol (protocol 2) until the event at position N, then:

- `crash`: writes to stderr and exits 3;
- `hang`: stops answering;
- `garbage`: prints a line that is not JSON;
- `short`: answers without most fields;
- `noisy`: answers, but first writes 64 KB to stderr at every event (from 0);
- `header`: answers the header with something else than ready (and never exits).
"""

import json
import sys
import time

from impl.profile import Profile
from impl.protocol import Session, ready

how, at = sys.argv[1], int(sys.argv[2])
header = json.loads(sys.stdin.readline())
if how == "header":
    print(json.dumps({"hello": "world"}), flush=True)
    time.sleep(600)
session = Session(header, Profile())
print(json.dumps(ready(Profile())), flush=True)
for raw in sys.stdin:
    request = json.loads(raw)
    if how == "noisy":
        sys.stderr.write("x" * 65_536 + "\n")
        sys.stderr.flush()
    if request.get("at") == at:
        if how == "crash":
            print("boom: the engine fell over", file=sys.stderr, flush=True)
            sys.exit(3)
        if how == "hang":
            time.sleep(600)
        if how == "garbage":
            print("hello, I am not JSON", flush=True)
            continue
        if how == "short":
            print(json.dumps({"size": 0}), flush=True)
            continue
    print(json.dumps(session.answer(request), ensure_ascii=False), flush=True)
