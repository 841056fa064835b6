"""impl.protocol with one answer field made wrong on purpose, for the CLI's
tests: `wrong.py size` answers every size one byte too many, `wrong.py queue`
an empty queue, `wrong.py refused` no refusal, and `wrong.py skip` refuses
every scenario's header as unsupported. Runs from any interpreter: it puts
the project's root first on its own path."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from impl.profile import Profile  # noqa: E402
from impl.protocol import Session, ready  # noqa: E402

how = sys.argv[1]
header = json.loads(sys.stdin.readline())
if how == "skip":
    print(json.dumps({"ready": False, "unsupported": {"all": "wrong.py skip takes nothing"}}))
    sys.exit(0)
session = Session(header, Profile())
print(json.dumps({**ready(Profile()), "sessions": False}), flush=True)
for raw in sys.stdin:
    answer = session.answer(json.loads(raw))
    if how == "size" and "size" in answer:
        answer["size"] += 1
    if how == "queue" and "queue" in answer:
        answer["queue"] = []
    if how == "refused":
        answer.pop("refused", None)
    print(json.dumps(answer, ensure_ascii=False), flush=True)
