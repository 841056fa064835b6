"""Driving the engine and the naive planner through the same workload."""

from __future__ import annotations

from bench.naive import NaivePlanner
from bench.workload import line_for, messages
from impl.constants import Constants
from impl.planner import Planner


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
