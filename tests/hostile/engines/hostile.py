"""A protocol engine that misbehaves on purpose, for tests/hostile/:
`hostile.py HOW [N]` answers like impl.protocol (protocol 2) except:

- `hang N`: stops answering at event N (reads nothing more, sleeps),
  saying so in $HOSTILE_DIR/hanging-<pid>;
- `crash N`: exits 3 at event N, answering nothing;
- `wait N`: at event N says it hangs (as `hang`), then waits until
  $HOSTILE_DIR/release is there and answers;
- `wrong_then_hang N`: in its first N processes answers the final detail
  request with a wrong render; later processes hang (as `hang`) at event 0;
- `orphan`: answers the header by starting a child that holds its stdout
  and sleeps, then exits;
- `dribble`: answers event 0 with endless bytes and no newline, slowly;
- `flood`: answers event 0 with 16 MiB and no newline, fast, then hangs;
- `flaky N`: in its first N processes (counted in $HOSTILE_DIR) answers the
  final detail request with a wrong render; later processes crash at the header;
- `protocol1`: answers the header with {"ready": true}, then garbage views;
- `self_start`: declares `calls: self` and says it started [5, 0] at the
  first answer that starts a call;
- `unsupported`: answers the header not ready, its reason $HOSTILE_TEXT
  (JSON);
- `lacking_wrong`: declares neither `timed_out_render` nor
  `compaction_view`, answers the final detail request with a wrong render,
  and with a timed-out render, a compaction view and contexts of its own
  (fields of what it lacks: never compared);
- `ready_with`: adds the fields of $HOSTILE_TEXT (a JSON object) to its
  ready answer;
- `noisy`: writes $HOSTILE_TEXT (JSON) to its stderr as UTF-8 (a lone
  surrogate as it comes, and a byte UTF-8 has not), then exits 5 at the
  header.

Every process records its process group in $HOSTILE_DIR/group-<pid>, and
leaves $HOSTILE_MARK in its environment for the tests to look for.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from impl.profile import Profile
from impl.protocol import Session, ready

folder = Path(os.environ["HOSTILE_DIR"])
(folder / f"group-{os.getpid()}").write_text(str(os.getpgid(0)))
how = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 0


def say(answer: object) -> None:
    print(json.dumps(answer, ensure_ascii=False), flush=True)


def hang() -> None:
    (folder / f"hanging-{os.getpid()}").touch()
    time.sleep(600)


def flaky_run() -> int:
    """This process's number among the `flaky` (or `wrong_then_hang`)
    engines started (1, 2, ...)."""
    with (folder / "runs").open("a") as runs:
        runs.write("x")
    return len((folder / "runs").read_text())


profile = Profile.from_json({"calls": "self"}) if how == "self_start" else Profile()
header = json.loads(sys.stdin.readline())
if how == "orphan":
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    sys.exit(3)
if how == "flaky" and flaky_run() > n:
    print("flaky: falls over this time", file=sys.stderr, flush=True)
    sys.exit(4)
if how == "unsupported":
    reason = json.loads(os.environ["HOSTILE_TEXT"])
    print(json.dumps({"ready": False, "unsupported": {"node": reason}}), flush=True)
    sys.exit(0)
if how == "noisy":
    text = json.loads(os.environ["HOSTILE_TEXT"])
    sys.stderr.buffer.write(text.encode("utf-8", "surrogatepass") + b"\xff\n")
    sys.stderr.flush()
    sys.exit(5)
if how == "protocol1":
    say({"ready": True})
    for _ in sys.stdin:
        say({"view": 7, "size": 0, "shrinking": False, "merges": 7, "cview": [], "queue": []})
    sys.exit(0)
if how == "wrong_then_hang" and flaky_run() > n:
    how, n = "hang", 0
session = Session(header, profile)
extra = json.loads(os.environ["HOSTILE_TEXT"]) if how == "ready_with" else {}
if how == "lacking_wrong":
    extra = {"capabilities": ["settle_timeout", "zoom", "queue_waiting", "replies"]}
say({**ready(profile), "sessions": False, **extra})
moved = False
for raw in sys.stdin:
    request = json.loads(raw)
    if request.get("at") == n and how == "hang":
        hang()
    if request.get("at") == n and how == "crash":
        sys.exit(3)
    if request.get("at") == n and how == "wait":
        (folder / f"hanging-{os.getpid()}").touch()
        while not (folder / "release").exists():
            time.sleep(0.05)
    if request.get("at") == 0 and how == "dribble":
        while True:
            sys.stdout.write("x" * 64)
            sys.stdout.flush()
            time.sleep(0.05)
    if request.get("at") == 0 and how == "flood":
        for _ in range(256):
            sys.stdout.write("x" * 65_536)
            sys.stdout.flush()
        time.sleep(600)
    answer = session.answer(request)
    if how in ("flaky", "wrong_then_hang", "lacking_wrong") and "render" in answer:
        answer["render"] += "!"
    if how == "lacking_wrong" and "render" in answer:
        answer["render_timed_out"] = "<chat>\nnot what SPEC renders\n</chat>"
        answer["cview"], answer["contexts"] = [[9, 9]], [[[9, 9], "mine"]]
    if how == "self_start" and answer.get("started") and not moved:
        answer["started"], moved = [[5, 0]], True
    say(answer)
