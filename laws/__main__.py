"""`python -m laws [--profile ci|deep] [--only NAME ...] [--relock]`: check every
law of SPEC 8 and print one table; exit 1 when any law is broken or changed."""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from laws import lock
from laws.all import all_laws
from laws.history import check_step_laws
from laws.registry import PROFILES, Broken, Held

COUNTEREXAMPLES = Path(__file__).resolve().parent.parent / "scenarios" / "regressions"


def progress(text: str) -> None:
    print(f"  ... {text}", file=sys.stderr, flush=True)


def check_law(name: str, profile_name: str) -> tuple[Held | Broken, float]:
    """Run one check law by name (in the worker process)."""
    law = next(law for law in all_laws() if law.name == name)
    began = time.perf_counter()
    progress(f"{law.name}")
    try:
        result: Held | Broken = law.function(PROFILES[profile_name])
    except Broken as broken:
        result = broken
    return result, time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m laws", description=__doc__)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    parser.add_argument("--only", nargs="*", default=None, help="check only these laws")
    parser.add_argument("--relock", action="store_true", help="rewrite LAWS.lock and stop")
    args = parser.parse_args(argv)
    laws = all_laws()
    if args.relock:
        lock.relock(laws)
        print(f"wrote {lock.LOCK} for {len(laws)} laws")
        return 0
    changed = lock.changes(laws)
    chosen = [law for law in laws if args.only is None or law.name in args.only]
    profile = PROFILES[args.profile]
    began = time.perf_counter()
    results: dict[str, Held | Broken] = {}
    seconds: dict[str, float] = {}
    steps = [law for law in chosen if law.kind == "step"]
    checks = [law for law in chosen if law.kind == "check"]
    # The check laws (proofs, loops) run in a second process while this one
    # generates histories for the step laws: two cores, two halves of the work.
    with ProcessPoolExecutor(max_workers=1) as pool:
        pending = {law.name: pool.submit(check_law, law.name, args.profile) for law in checks}
        if steps:
            step_began = time.perf_counter()
            found, spent, tally = check_step_laws(steps, profile, COUNTEREXAMPLES, progress)
            results.update(found)
            seconds.update(spent)
            shared = time.perf_counter() - step_began - sum(spent.values())
        for name, future in pending.items():
            results[name], seconds[name] = future.result()
    width = max(len(law.name) for law in chosen)
    print(f"{'law':<{width}}  {'result':<6}  {'seconds':>7}  strength")
    for law in chosen:
        result = results[law.name]
        verdict = "holds" if isinstance(result, Held) else "BROKEN"
        strength = result.strength if isinstance(result, Held) else "see below"
        print(f"{law.name:<{width}}  {verdict:<6}  {seconds.get(law.name, 0):7.2f}  {strength}")
    if steps:
        print(
            f"(step laws share {tally.histories} generated histories, {tally.events} events, "
            f"{shared:.1f} s outside the laws' own checks)"
        )
    broken = [r for r in results.values() if isinstance(r, Broken)]
    for result in broken:
        print(f"\n{result}")
    for line in changed:
        print(f"\nLAWS.lock: {line}")
    total = time.perf_counter() - began
    if broken or changed:
        print(
            f"\n{len(broken)} of {len(chosen)} laws BROKEN, {len(changed)} lock problems "
            f"({total:.1f} s)"
        )
        return 1
    if len(chosen) == len(laws):
        print(f"ALL {len(laws)} LAWS HOLD ({total:.1f} s, profile {profile.name})")
    else:
        print(f"{len(chosen)} OF {len(laws)} LAWS HOLD, THE REST NOT RUN ({total:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
