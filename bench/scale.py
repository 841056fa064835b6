"""`python -m bench.scale N`: the engine through N messages (compactor never
late), printed as JSON: seconds, microseconds per message, peak memory."""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import impl
from bench.drive import engine_run
from scenarios.arguments import positive_int


def peak_bytes() -> int:
    """This process's peak resident memory. Linux keeps `ru_maxrss` across
    exec, so a child of a large parent would report the parent's size; the
    memory map's high-water mark (VmHWM) starts afresh at exec."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str] | None = None) -> None:
    """Run the engine through COUNT messages and print the measures."""
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument("count", type=positive_int, metavar="COUNT", help="messages")
    count = parser.parse_args(argv).count
    began = time.perf_counter()
    planner = engine_run(count, 128_000, 64_000)
    seconds = time.perf_counter() - began
    peak = peak_bytes()
    print(
        json.dumps(
            {
                "messages": count,
                "seconds": seconds,
                "lines": len(planner.view()),
                "per_message_us": seconds / count * 1e6,
                "peak_bytes": peak,
                "compiled": impl.COMPILED,
            }
        )
    )


if __name__ == "__main__":
    main()
