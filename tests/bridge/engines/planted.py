"""`python -m impl.protocol` with several planted differences at once, for
grouping failures into causes (bridge/checking/causes.py): `planted.py
NAME ...` plants each one named, from its own module here: `free_leaf`
(free_leaf_bug.py: a free leaf counted as a placeholder during its batch,
SPEC 3), `late_cap` (failure_cap_late.py: the failure cap one failure late,
SPEC 4), `zoom` (zoom_newest_first.py: a node's halves zoomed newest first,
SPEC 3.5, which no profile option declares). Plain Python, so that the
patches reach the planner."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import failure_cap_late  # noqa: E402 (first: it makes the engine plain Python)
import free_leaf_bug  # noqa: E402
import zoom_newest_first  # noqa: E402

from impl import protocol  # noqa: E402

PLANTS = {
    "free_leaf": free_leaf_bug.plant,
    "late_cap": failure_cap_late.plant,
    "zoom": zoom_newest_first.plant,
}

if __name__ == "__main__":
    named = sys.argv[1:]
    unknown = [name for name in named if name not in PLANTS]
    if unknown or not named:
        sys.exit(f"planted.py: name one or more of {', '.join(PLANTS)}, not {unknown or 'none'}")
    for name in named:
        PLANTS[name]()
    sys.exit(protocol.main([]))
