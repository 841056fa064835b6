"""The engine in `impl/` behind a filter that puts hostile text into what it
says, for the reports' escaping tests (tests/bridge/test_report_payloads.py):
its name in the answer to the header, its stderr, a refusal it makes up at
the event at 1 (a divergence: the model accepts it), a stray `x-` field, and
its render at the final detail request. The text is in PAYLOAD (environment
variable OPTCHAT_PAYLOAD, JSON-encoded)."""

import json
import os
import subprocess
import sys

PAYLOAD = json.loads(os.environ["OPTCHAT_PAYLOAD"])


def tampered(sent: dict, answer: dict) -> dict:
    if "ready" in answer:
        return {**answer, "engine": PAYLOAD}
    if sent.get("at") == 1:
        return {**answer, "refused": PAYLOAD}
    if "render" in answer:
        return {**answer, "render": answer["render"] + PAYLOAD, "x-note": PAYLOAD}
    return answer


def main() -> None:
    sys.stderr.write(f"payload on stderr: {PAYLOAD}\n")
    sys.stderr.flush()
    engine = subprocess.Popen(
        [sys.executable, "-m", "impl.protocol", *sys.argv[1:]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert engine.stdin is not None and engine.stdout is not None
    for line in sys.stdin.buffer:
        engine.stdin.write(line)
        engine.stdin.flush()
        answer = json.loads(engine.stdout.readline())
        sys.stdout.write(json.dumps(tampered(json.loads(line), answer)) + "\n")
        sys.stdout.flush()
    engine.stdin.close()
    engine.wait()


main()
