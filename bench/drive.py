"""Driving the engine and the naive planner through the same workload."""

from __future__ import annotations

import argparse
import json
import time

import impl
from bench.naive import NaivePlanner
from bench.workload import line_for, messages
from impl.constants import Constants
from impl.planner import Planner
from scenarios.arguments import positive_int


def engine_run(count: int, ceiling: int, floor: int) -> Planner:
    """The engine through `count` messages, every call started and ended at once."""
    planner = Planner(
        Constants(ceiling=ceiling, floor=floor, cceiling=ceiling // 4, cfloor=floor // 4)
    )
    for kind, text in messages(count):
        planner.message(kind, text)
        while calls := planner.candidates():
            for node in calls:
                planner.start(node)
            for node in calls:
                planner.end(node, line_for(*node))
    return planner


def naive_run(count: int, ceiling: int, floor: int) -> NaivePlanner:
    """The naive planner through the same messages and lines."""
    naive = NaivePlanner(512, ceiling, floor, ceiling // 4, floor // 4)
    for kind, text in messages(count):
        naive.message(kind, text)
    return naive


def main(argv: list[str] | None = None) -> None:
    """`python -m bench.drive CEILING COUNT`: seconds of the engine and of the
    naive planner on COUNT messages at CEILING (FLOOR half of it), whether
    they end with the same view, and whether the engine is the C build; JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.drive", description=main.__doc__)
    parser.add_argument("ceiling", type=positive_int, metavar="CEILING", help="bytes")
    parser.add_argument("count", type=positive_int, metavar="COUNT", help="messages")
    args = parser.parse_args(argv)
    ceiling, count = args.ceiling, args.count
    began = time.perf_counter()
    fast_view = engine_run(count, ceiling, ceiling // 2).view()
    engine = time.perf_counter() - began
    began = time.perf_counter()
    slow_view = naive_run(count, ceiling, ceiling // 2).view
    naive = time.perf_counter() - began
    same = list(fast_view) == slow_view
    print(json.dumps({"engine": engine, "naive": naive, "same": same, "compiled": impl.COMPILED}))


if __name__ == "__main__":
    main()
