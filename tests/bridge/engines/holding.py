"""impl.protocol under `calls: self` (the deviant profile,
scenarios/profiles/deviant.json), holding outcomes as some engines with a
compactor of their own do: an `end` or `fail` of a call that is not running
is not refused (SPEC 4.1: `end_needs_running`, `fail_needs_running`) but
kept, answered as if taken (the state unchanged), and applied once the
engine starts that call. Under the bridge's old rule (every such outcome
held until its call starts, so never sent where it does not run) this
engine agreed on the `both_end_needs_running_*` scenarios, which exist to
test that refusal."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from impl.profile import Profile  # noqa: E402
from impl.protocol import Session, compact, ready  # noqa: E402

IDLE = ("end_needs_running", "fail_needs_running")

profile = Profile.from_json(json.loads((ROOT / "scenarios/profiles/deviant.json").read_text()))
session: Session | None = None
kept: list[dict] = []
for raw in sys.stdin:
    request = json.loads(raw)
    if "format" in request:
        session, kept = Session(request, profile), []
        answer = ready(profile)
    else:
        assert session is not None
        answer = session.answer(request)
        if answer.get("refused") in IDLE:
            del answer["refused"]
            kept.append(request)
        for outcome in [o for o in kept if tuple(o["node"]) in session.planner.queue.running]:
            kept.remove(outcome)
            session.answer(outcome)
    sys.stdout.buffer.write(compact(answer) + b"\n")
    sys.stdout.flush()
