"""`python -m bench.scale N`: the engine through N messages (compactor never
late), printed as JSON: seconds, microseconds per message, peak memory."""

from __future__ import annotations

import json
import resource
import sys
import time

from bench.drive import engine_run


def main() -> None:
    count = int(sys.argv[1])
    began = time.perf_counter()
    planner = engine_run(count, 128_000, 64_000)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            {
                "messages": count,
                "seconds": seconds,
                "lines": len(planner.view()),
                "per_message_us": seconds / count * 1e6,
                "peak_bytes": peak,
            }
        )
    )


if __name__ == "__main__":
    main()
