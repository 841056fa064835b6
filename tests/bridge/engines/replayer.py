"""A zero-cost protocol 2 engine: it answers every line from the committed
transcript of the scenario whose header it was sent, doing no planning at
all, so that a run with it measures the bridge alone (BENCHMARKS.md).
`replayer.py [PROFILE_KEY]` answers from the transcripts of that profile
(a folder of scenarios/expected/corpus/) and declares that profile."""

import gzip
import json
import os
import sys
from pathlib import Path

from bridge.formats.transcript import cut

ROOT = Path(__file__).resolve().parents[3] / "scenarios"


def transcripts(folder: Path) -> dict[bytes, Path]:
    """Each corpus scenario's header line, to its transcript in `folder`."""
    out = {}
    for path in (ROOT / "corpus").glob("*.jsonl"):
        with path.open("rb") as scenario:
            out[scenario.readline().rstrip(b"\n")] = folder / f"{path.stem}.jsonl.gz"
    return out


def main() -> None:
    folder = ROOT / "expected" / "corpus"
    if len(sys.argv) > 1:
        folder /= sys.argv[1]
    known = transcripts(folder)
    fd, sink = sys.stdin.fileno(), sys.stdout.buffer
    pending = b""
    records = None
    while chunk := os.read(fd, 1 << 16):
        *lines, pending = (pending + chunk).split(b"\n")
        out = []
        for line in lines:
            if line in known:
                records = gzip.open(known[line], "rb")
                header = json.loads(records.readline())
                ready = {"ready": True, "protocol": 2, "profile": header["profile"]}
                out.append(json.dumps({**ready, "sessions": True}).encode() + b"\n")
                continue
            assert records is not None, "a scenario header comes first"
            out.append(cut(records.readline())[2] + b"\n")
        sink.write(b"".join(out))
        sink.flush()


if __name__ == "__main__":
    main()
