"""A protocol 2 engine that does no planning: `logging_sink.py LOG PAD`
appends every line it reads to the file LOG as it reads it, and answers
each event with the fields every answer holds (all empty) and an `x-pad`
field of PAD bytes; it answers the detail request likewise."""

import json
import sys

log_path, pad = sys.argv[1], int(sys.argv[2])
EMPTY = {
    "size": 0,
    "shrinking": False,
    "merges": [],
    "cmerges": [],
    "view_digest": 0,
    "cview_digest": 0,
    "queue": [],
    "queue_waiting": [],
    "view": [],
    "cview": [],
    "render": "",
    "render_timed_out": "",
    "contexts": [],
}
with open(log_path, "a", encoding="utf-8") as log:
    for number, raw in enumerate(sys.stdin):
        log.write(raw)
        log.flush()
        answer = {"ready": True, "protocol": 2} if number == 0 else {**EMPTY, "x-pad": "p" * pad}
        print(json.dumps(answer), flush=True)
