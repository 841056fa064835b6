"""`python -m bench [--quick]`: every measure of the benchmark issue, as ratios
and times measured in this one run, printed as one table. Each row says the
command that reproduces it and whether its target holds. `--quick` is a
smaller smoke run, without the nightly laws run (about ten minutes)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import impl
from bench import red
from bench.corpus import corpus, engine_seconds, model_replay, seconds
from tests import gate


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


def planner_kind(compiled: bool) -> str:
    return "C build" if compiled else "plain Python"


def corpus_ratio(quick: bool) -> list[Row]:
    """Row 1 for the engine as `make` builds it, and for comparison with its
    planner as plain Python (OPTCHAT_PURE=1, in a process of its own)."""
    flags = ["--quick"] if quick else []
    replays = corpus(quick)
    engine = engine_seconds(replays)  # first, on a fresh heap: it is the short one
    plain = run_json("-m", "bench.corpus", *flags, env={"OPTCHAT_PURE": "1"})
    model = seconds(model_replay, replays)
    ratio = model / engine
    plain_ratio = model / plain["engine_seconds"]
    return [
        Row(
            f"1. engine ({planner_kind(impl.COMPILED)}) vs model on the corpus",
            f"{ratio:.0f}x faster (model {model:.0f} s, engine {engine:.2f} s)",
            ">= 50x",
            ratio >= 50,
            "python -m bench",
        ),
        Row(
            "1. engine (plain Python) vs model on the corpus",
            f"{plain_ratio:.0f}x faster (engine {plain['engine_seconds']:.2f} s)",
            "(reported)",
            True,
            "OPTCHAT_PURE=1 python -m bench.corpus",
        ),
    ]


def run_json(*args: str, env: dict[str, str] | None = None) -> dict:
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def scale(quick: bool) -> list[Row]:
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    runs = {n: run_json("-m", "bench.scale", str(n)) for n in sizes}
    small, big = runs[sizes[0]], runs[sizes[-1]]
    flat = big["per_message_us"] / small["per_message_us"]
    rows = [
        Row(
            f"2. engine ({planner_kind(r['compiled'])}) per message at {n:,} messages",
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
    """Row 3, algorithm against algorithm: the engine's planner as plain
    Python (OPTCHAT_PURE=1), like the naive planner."""
    rows = []
    for ceiling, count, want in ((128_000, 6_000, 1.0), (1_000_000, 12_000, 5.0)):
        count = count // 3 if quick else count
        found = run_json("-m", "bench.drive", str(ceiling), str(count), env={"OPTCHAT_PURE": "1"})
        ratio = found["naive"] / found["engine"]
        rows.append(
            Row(
                f"3. engine (plain Python) vs naive planner, CEILING {ceiling:,}, "
                f"{count:,} messages",
                f"{ratio:.1f}x faster (same final view: {found['same']})",
                f">= {want:g}x",
                ratio >= want and found["same"] and not found["compiled"],
                f"OPTCHAT_PURE=1 python -m bench.drive {ceiling} {count}",
            )
        )
    return rows


def make_bridge() -> Row:
    """Row 5: `make bridge`, the model then the engine against the transcripts."""
    began = time.perf_counter()
    for engine in ("model", "impl"):
        subprocess.run(
            [sys.executable, "-m", "bridge", "corpus", "--engine", engine],
            capture_output=True,
            check=True,
        )
    seconds = time.perf_counter() - began
    return Row(
        "5. make bridge (whole corpus: the model, then the engine, against the transcripts)",
        f"{seconds:.0f} s",
        "<= 45 s",
        seconds <= 45,
        "make bridge",
    )


def command_time(measure: str, target: float, *args: str) -> Row:
    seconds = timed(
        lambda: subprocess.run([sys.executable, *args], capture_output=True, check=True)
    )
    shown = " ".join(("python", *args))
    return Row(measure, f"{seconds:.0f} s", f"< {target:g} s", seconds < target, shown)


def bridge_cost() -> list[Row]:
    """Rows 7 and 8: what checking an engine costs beyond running it."""
    found = run_json("-m", "bench.bridge")
    zero, alone, checked = found["zero_cost"], found["engine_alone"], found["checked"]
    events = found["events"]
    ratio = checked["seconds"] / alone["seconds"]
    overhead = (checked["seconds"] - alone["seconds"]) / events * 1e6
    return [
        Row(
            f"7. zero-cost protocol engine, whole corpus ({events:,} events), one job",
            f"{zero['seconds']:.1f} s, peak {zero['peak_bytes'] / 2**20:.0f} MB (all processes)",
            "<= 10 s, 300 MB",
            zero["seconds"] <= 10 and zero["peak_bytes"] <= 300 * 2**20,
            "python -m bench.bridge",
        ),
        Row(
            "8. checking impl.protocol (plain Python) vs running it alone on the same lines",
            f"{ratio:.2f}x ({checked['seconds']:.1f} s vs {alone['seconds']:.1f} s; "
            f"harness {overhead:.0f} us per event)",
            "<= 2x",
            ratio <= 2,
            "python -m bench.bridge",
        ),
    ]


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


def growth() -> Row:
    """Row 10: the model through the issue's 50 MB chat with no call, timed at
    its 10, 20, 30 and 50 MB prefixes in one run: a message should cost the
    same at 50 MB as at 10 MB (nothing merges, so nothing grows but the chat)."""
    found = run_json("-m", "bench.growth")
    seconds = {int(mb): s for mb, s in found["seconds"].items()}
    per_mb = {mb: s / mb for mb, s in seconds.items()}
    flat = per_mb[50] / per_mb[10]
    shown = ", ".join(f"{mb} MB {s:.1f} s" for mb, s in seconds.items())
    return Row(
        "10. model on a chat of 5,000-byte messages, no call: prefixes; per MB at 50 / at 10",
        f"{shown}; {flat:.2f}",
        "50 MB < 60 s, <= 2",
        seconds[50] < 60 and flat <= 2,
        "python -m bench.growth",
    )


def diagnose_cost(quick: bool) -> list[Row]:
    """Row 11: `diagnose` from nothing beside corpus runs of the same engine:
    the distant engine (eight differences, a profile without transcripts:
    the model answers for it), against the corpus run of the engine
    declaring its real profile (every answer compared, what diagnose must
    do at least once), its proposal the real profile; and the partial
    engine (four differences, a kept profile) against the corpus run of the
    engine declaring nothing (issue 21's measure)."""
    flags = ["--quick"] if quick else []
    far = run_json("-m", "bench.diagnose", *flags)
    near = run_json("-m", "bench.diagnose", "--engine", "partial", *flags)
    ratio = far["ratio_declared_wall"]
    return [
        Row(
            f"11. diagnose from nothing vs corpus declaring the real profile, distant engine "
            f"(8 differences), {far['scenarios']} scenarios",
            f"{ratio:.1f}x ({far['diagnose']['wall']:.0f} s vs "
            f"{far['corpus_declared']['wall']:.0f} s; CPU {far['ratio_declared_cpu']:.1f}x; "
            f"{far['ratio_wall']:.1f}x the run declaring nothing, {far['corpus']['wall']:.0f} s); "
            f"proposal {'= the real profile' if far['real'] else 'WRONG'}",
            "<= 3x",
            ratio <= 3 and far["real"] and far["likely_bugs"] == 0,
            "python -m bench.diagnose",
        ),
        Row(
            "11. diagnose vs one corpus run declaring nothing, the partial engine "
            "(four differences, a kept profile)",
            f"{near['ratio_wall']:.1f}x ({near['diagnose']['wall']:.0f} s vs "
            f"{near['corpus']['wall']:.0f} s; {near['ratio_declared_wall']:.1f}x the run "
            "declaring its profile)",
            "<= 3x",
            near["ratio_wall"] <= 3,
            "python -m bench.diagnose --engine partial",
        ),
        *(shaped_cost(name, flags) for name in ("self_starting", "zoom_shaped")),
    ]


def shaped_cost(name: str, flags: list[str]) -> Row:
    """Row 11 (issue 40): `diagnose` from nothing of an engine shaped like a
    real one (tests/bridge/engines/), against its corpus run declaring its
    profile: at most 3x, its proposal the engine's exact profile, and no
    likely bug."""
    run = run_json("-m", "bench.diagnose", "--engine", name, *flags)
    ratio = run["ratio_declared_wall"]
    return Row(
        f"11. diagnose from nothing vs corpus declaring the real profile, {name} engine "
        f"(issue 40), {run['scenarios']} scenarios",
        f"{ratio:.1f}x ({run['diagnose']['wall']:.0f} s vs "
        f"{run['corpus_declared']['wall']:.0f} s; CPU {run['ratio_declared_cpu']:.1f}x); "
        f"proposal {'= the real profile' if run['real'] else 'WRONG'}, "
        f"{run['likely_bugs']} likely bugs",
        "<= 3x",
        ratio <= 3 and run["real"] and run["likely_bugs"] == 0,
        f"python -m bench.diagnose --engine {name}",
    )


def fuzz_rate() -> Row:
    """Row 12: `fuzz` against the engine, events per second now and before
    issue 24's rework (a scratch copy of that commit), in turn in this run."""
    found = run_json("-m", "bench.fuzz", "--rate")
    before, after, ratio = found["before"], found["after"], found["ratio"]
    shown = f"{after:.0f} events/s" if after is not None else "failed"
    if ratio is not None:
        shown += f", {ratio:.1f}x the {before:.0f} events/s of {found['commit']}"
    return Row(
        "12. fuzz against the engine (plain Python), 300 histories from seed 1, now vs before",
        shown,
        ">= 3x",
        ratio is not None and ratio >= 3,
        "python -m bench.fuzz --rate",
    )


def failing_engine(quick: bool) -> Row:
    """Row 13: a failing engine against a passing one over the corpus."""
    found = run_json("-m", "bench.failing", *(["--quick"] if quick else []))
    passing, failing, reported = found["passing"], found["failing"], found["failing_report"]
    ratio = failing["wall"] / passing["wall"]
    return Row(
        "13. failing engine vs passing engine over the corpus (and with --report)",
        f"{ratio:.2f}x ({failing['wall']:.0f} s, {failing['fails']} FAIL, vs "
        f"{passing['wall']:.0f} s; --report {reported['wall']:.0f} s)",
        "<= 1x",
        ratio <= 1 and failing["fails"] > 0 and passing["exit"] == 0,
        "python -m bench.failing",
    )


def shrunk_sizes() -> Row:
    """Row 14: the engine breaks of `make mutants` and issue 24's two
    example breaks, each found by `fuzz` and shrunk (budget in replays)."""
    found = run_json("-m", "bench.fuzz", "--throughput-seconds", "0")
    sizes = found["sizes"]
    shown = ", ".join("?" if size is None else str(size) for size in sizes.values())
    largest = found["largest"]
    return Row(
        f"14. fuzz: {len(sizes)} engine breaks found and shrunk to (events)",
        f"{shown}; largest {largest}",
        "<= 10",
        largest is not None and largest <= 10,
        "python -m bench.fuzz --throughput-seconds 0",
    )


def zipapp_start() -> Row:
    """Row 15: the single-file runner beside the clone's runner on a command
    that is nearly all starting, after the zipapp's first run."""
    found = run_json("-m", "bench.zipapp")
    ratio = found["ratio_wall"]
    return Row(
        "15. the zipapp vs the clone's runner, corpus --engine reference on empty_chat",
        f"{ratio:.2f}x wall, {found['ratio_cpu']:.2f}x CPU ({found['zipapp_wall']:.2f} s vs "
        f"{found['clone_wall']:.2f} s; first run {found['first_run_wall']:.1f} s)",
        "<= 1.5x",
        ratio <= 1.5,
        "python -m bench.zipapp",
    )


def delivery_floor() -> Row:
    """Row 16 (issue 35): the events the example engines' profiles are
    delivered, every SPEC 10 option off SPEC at once among them, on the
    whole corpus, each at least the floor (tests/scenarios/delivery.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.scenarios.delivery", "--engines"],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )  # its progress, every 10 s, goes to stderr as it comes
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ")]
    found = [f"{cells[0].strip('| ')} {cells[-1].split(' (')[0]}" for cells in rows[2:]]
    return Row(
        "16. delivered under the example engines' profiles, whole corpus",
        "; ".join(found) or "nothing measured",
        ">= 95 %",
        done.returncode == 0 and bool(found),
        "python -m tests.scenarios.delivery --engines",
    )


def differing_declared() -> Row:
    """Row 17 (issue 35): the example engine with every SPEC 10 difference
    at once and a real engine's constants limits (tests/bridge/engines/
    differing.py), declaring them, over the whole corpus: no FAIL, and each
    scenario SKIPPED either for its constants or because it exists only for
    refusals the profile cannot show (bridge/checking/purpose.py)."""
    engine = f"{sys.executable} tests/bridge/engines/differing.py --declare"
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "run.json")
        done = subprocess.run(
            [sys.executable, "-m", "bridge", "corpus", "--engine", engine, "--jobs", "2"]
            + ["--json", report, "--shrink-tries", "0"],
            stdout=sys.stderr,  # its progress, as it comes
            check=False,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        cases = []
        if os.path.exists(report):  # not when the run ended before its report
            with open(report, encoding="utf-8") as file:
                cases = json.load(file)["scenarios"]
    reasons = [c.get("reason", "") for c in cases if c["status"] == "SKIPPED"]
    limits = sum(r.startswith("its constants lie outside") for r in reasons)
    moot = sum(r.startswith("not tested: it exists for its ") for r in reasons)
    ok = sum(c["status"] == "ok" for c in cases)
    return Row(
        "17. the differing engine, every difference declared, whole corpus",
        f"{ok} ok, {len(reasons)} SKIPPED ({limits} for its constants, {moot} moot), "
        f"{len(cases) - ok - len(reasons)} other",
        "no other",
        done.returncode == 0 and bool(cases) and ok + limits + moot == len(cases),
        f"python -m bridge corpus --engine '{engine}'",
    )


def red_speed(quick: bool) -> Row:
    """Row 18 (issue 40): a red run's verdict and end as ratios to its own
    replay, on an example engine with three planted bugs that starts a
    fresh `python3` per replay (bench/red.py)."""
    run = red.red_run(quick)
    replay = run.replay or run.end
    verdict = None if run.verdict is None else run.verdict / replay
    end = run.end / replay
    said = "never" if verdict is None else f"{verdict:.2f}x ({run.verdict:.0f} s)"
    return Row(
        f"18. a red run, {', '.join(red.PLANTS)} planted, a fresh python3 per replay: "
        "verdict and end vs its replay",
        f"replay {replay:.0f} s; {run.fails} FAIL from {run.causes} causes at {said}; "
        f"end {end:.2f}x ({run.end:.0f} s)",
        "<= 1.2x, <= 2x",
        run.replay is not None
        and run.fails > 0
        and run.code == 1
        and verdict is not None
        and verdict <= 1.2
        and end <= 2,
        f"python -m bridge {shlex.join(red.command(quick)[2:])}",
    )


DEEP_SEED = 1
"""The nightly's seed in the benchmark, so that every `make bench` checks the same cases."""


def laws_deep() -> Row:
    """Row 9: the nightly `make laws-deep`, from a fixed seed and an example
    database of its own (a kept one would replay old failures first). Its
    progress lines pass through."""
    command = ["-m", "laws", "--profile", "deep", "--seed", str(DEEP_SEED)]
    with tempfile.TemporaryDirectory(prefix="optchat-deep-") as database:
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, *command, "--database", database], stdout=subprocess.PIPE, text=True
        )
        seconds = time.perf_counter() - began
    said = done.stdout.strip().splitlines()
    return Row(
        "9. make laws-deep (the nightly, seed 1)",
        f"{seconds / 60:.1f} min: {said[-1] if said else f'exit {done.returncode}'}",
        "<= 15 min",
        done.returncode == 0 and seconds <= 15 * 60,
        " ".join(("python", *command)),
    )


GATE_CPU = 430.0
"""The gate's CPU seconds at most: half of the 859 it took before issue 41
(docs/developing.md, "What `make test` runs")."""


def gate_cost() -> Row:
    """Row 19: `make test`'s gate, its CPU seconds summed over every stage
    and what each started (tests/gate.py writes them to build/gate/times.json),
    so that growth shows; its progress lines pass through."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tests.gate"], stdout=sys.stderr)
    seconds = time.perf_counter() - began
    try:
        times = json.loads((gate.LOGS / gate.TIMES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        times = {"cpu": float("inf"), "wall": seconds, "passed": False, "stages": {}}
    heavy = sorted(times["stages"].items(), key=lambda item: -item[1]["cpu"])[:3]
    said = ", ".join(f"{name} {stage['cpu']:.0f}" for name, stage in heavy)
    return Row(
        "19. make test's gate: CPU seconds of every stage together (wall on this machine)",
        f"{times['cpu']:.0f} CPU s ({said}); {times['wall']:.0f} s wall; exit {done.returncode}",
        f"<= {GATE_CPU:g} CPU s",
        done.returncode == 0 and times["passed"] and times["cpu"] <= GATE_CPU,
        "python -m tests.gate",
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    quick = parser.parse_args().quick
    rows: list[Row] = []
    steps: list[Callable[[], list[Row]]] = [
        lambda: corpus_ratio(quick),
        lambda: scale(quick),
        lambda: naive(quick),
        lambda: [command_time("4. make laws (CI profile)", 60, "-m", "laws")],
        lambda: [make_bridge()],
        bridge_cost,
        lambda: [storage(quick)],
        lambda: [growth()],
        lambda: diagnose_cost(quick),
        lambda: [fuzz_rate()],
        lambda: [failing_engine(quick)],
        lambda: [shrunk_sizes()],
        lambda: [zipapp_start()],
        lambda: [delivery_floor()],
        lambda: [differing_declared()],
        lambda: [red_speed(quick)],
        lambda: [gate_cost()],
    ]
    if not quick:
        steps.append(lambda: [laws_deep()])
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
