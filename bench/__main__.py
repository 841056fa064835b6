"""`python -m bench [--quick]`: every measure of the benchmark issue, as ratios
and times measured in this one run, printed as one table. Each row says the
command that reproduces it and whether its target holds."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.corpus import impl_replay, materialized, model_replay, seconds
from bench.drive import engine_run, naive_run
from bridge.corpus import files


@dataclass
class Row:
    measure: str
    value: str
    target: str
    holds: bool
    command: str


def timed(work: Callable[[], object]) -> float:
    began = time.perf_counter()
    work()
    return time.perf_counter() - began


def corpus_ratio(quick: bool) -> Row:
    corpus = [materialized(path) for path in (files()[:6] if quick else files())]
    engine = seconds(impl_replay, corpus)  # first, on a fresh heap: it is the short one
    model = seconds(model_replay, corpus)
    ratio = model / engine
    return Row(
        "1. engine vs model on the corpus",
        f"{ratio:.0f}x faster (model {model:.0f} s, engine {engine:.1f} s)",
        ">= 50x",
        ratio >= 50,
        "python -m bench",
    )


def run_json(*args: str) -> dict:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def scale(quick: bool) -> list[Row]:
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    runs = {n: run_json("-m", "bench.scale", str(n)) for n in sizes}
    small, big = runs[sizes[0]], runs[sizes[-1]]
    flat = big["per_message_us"] / small["per_message_us"]
    rows = [
        Row(
            f"2. engine per message at {n:,} messages",
            f"{r['per_message_us']:.0f} us, {r['seconds']:.1f} s, "
            f"peak {r['peak_bytes'] / 2**20:.0f} MB",
            "",
            True,
            f"python -m bench.scale {n}",
        )
        for n, r in runs.items()
    ]
    rows.append(
        Row(
            f"2. cost per message {sizes[-1]:,} / {sizes[0]:,}",
            f"{flat:.2f}",
            "<= 1.5",
            flat <= 1.5,
            "python -m bench",
        )
    )
    if not quick:
        rows.append(
            Row(
                "2. 10^6 messages planned",
                f"{big['seconds']:.1f} s",
                "< 60 s",
                big["seconds"] < 60,
                "python -m bench.scale 1000000",
            )
        )
        rows.append(
            Row(
                "2. peak memory at 10^6",
                f"{big['peak_bytes'] / 2**20:.0f} MB",
                "< 1 GB",
                big["peak_bytes"] < 2**30,
                "python -m bench.scale 1000000",
            )
        )
    return rows


def naive(quick: bool) -> list[Row]:
    rows = []
    for ceiling, count, want in ((128_000, 6_000, 1.0), (1_000_000, 12_000, 5.0)):
        count = count // 3 if quick else count
        began = time.perf_counter()
        fast_view = engine_run(count, ceiling, ceiling // 2).view()
        engine = time.perf_counter() - began
        began = time.perf_counter()
        slow_view = naive_run(count, ceiling, ceiling // 2).view
        slow = time.perf_counter() - began
        same = list(fast_view) == slow_view
        ratio = slow / engine
        rows.append(
            Row(
                f"3. engine vs naive planner, CEILING {ceiling:,}, {count:,} messages",
                f"{ratio:.1f}x faster (same final view: {same})",
                f">= {want:g}x",
                ratio >= want and same,
                "python -m bench",
            )
        )
    return rows


def command_time(measure: str, target: float, *args: str) -> Row:
    seconds = timed(
        lambda: subprocess.run([sys.executable, *args], capture_output=True, check=True)
    )
    shown = " ".join(("python", *args))
    return Row(measure, f"{seconds:.0f} s", f"< {target:g} s", seconds < target, shown)


def storage(quick: bool) -> Row:
    count = "10000" if quick else "100000"
    found = run_json("-m", "bench.storage", count)
    return Row(
        f"6. storage: appends with fsync; load of {int(count):,} messages",
        f"{found['appends_per_second']:.0f} appends/s; load {found['load_seconds']:.1f} s",
        "(reported)",
        True,
        f"python -m bench.storage {count}",
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    quick = parser.parse_args().quick
    rows: list[Row] = []
    steps: list[Callable[[], list[Row]]] = [
        lambda: [corpus_ratio(quick)],
        lambda: scale(quick),
        lambda: naive(quick),
        lambda: [command_time("4. make laws (CI profile)", 60, "-m", "laws")],
        lambda: [
            command_time(
                "5. make bridge (whole corpus, model and engine)",
                120,
                "-m",
                "bridge",
                "corpus",
                "--engine",
                "impl",
            )
        ],
        lambda: [storage(quick)],
    ]
    for step in steps:
        for row in step():
            rows.append(row)
            print(f"  ... {row.measure}: {row.value}", file=sys.stderr, flush=True)
    width = max(len(r.measure) for r in rows)
    print(f"{'measure':<{width}}  {'value':<58}  {'target':<8}  ok    command")
    for r in rows:
        print(
            f"{r.measure:<{width}}  {r.value:<58}  {r.target:<8}  "
            f"{'yes' if r.holds else 'NO':<4}  {r.command}"
        )
    missed = [r for r in rows if not r.holds]
    print("ALL BENCHMARK TARGETS HOLD" if not missed else f"{len(missed)} TARGETS MISSED")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
