"""`python -m impl.protocol` with several planted differences at once, for
grouping failures into causes (bridge/checking/causes.py): `planted.py
NAME ...` plants each one named, from its own module here: `free_leaf`
(free_leaf_bug.py: a free leaf counted as a placeholder during its batch,
SPEC 3), `late_cap` (failure_cap_late.py: the failure cap one failure late,
SPEC 4), `zoom` (zoom_newest_first.py: a node's halves zoomed newest first,
SPEC 3.5, which no profile option declares); issue 40's, each seen in
several ways: `queued_leaf` (free_leaf_queued.py: a free leaf waits for a
call, SPEC 2), `crlf` (crlf_two_spaces.py: `\\r\\n` flattened to two
spaces, SPEC 3), `ahead_running` (ahead_running.py: a running leaf not
counted toward AHEAD, SPEC 4), `merges_first` (merges_first.py: ready
merges offered before unbuilt leaves, SPEC 4), `lone_cr` (lone_cr.py: a
lone `\r` left unflattened in renders and zooms, SPEC 3). Plain Python, so
that the patches reach the planner."""

import os
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"
sys.path.insert(0, str(Path(__file__).parent))

import ahead_running  # noqa: E402
import crlf_two_spaces  # noqa: E402
import failure_cap_late  # noqa: E402
import free_leaf_bug  # noqa: E402
import free_leaf_queued  # noqa: E402
import lone_cr  # noqa: E402
import merges_first  # noqa: E402
import zoom_newest_first  # noqa: E402

from impl import protocol  # noqa: E402

PLANTS = {
    "free_leaf": free_leaf_bug.plant,
    "late_cap": failure_cap_late.plant,
    "zoom": zoom_newest_first.plant,
    "queued_leaf": free_leaf_queued.plant,
    "crlf": crlf_two_spaces.plant,
    "ahead_running": ahead_running.plant,
    "merges_first": merges_first.plant,
    "lone_cr": lone_cr.plant,
}

if __name__ == "__main__":
    named = sys.argv[1:]
    unknown = [name for name in named if name not in PLANTS]
    if unknown or not named:
        sys.exit(f"planted.py: name one or more of {', '.join(PLANTS)}, not {unknown or 'none'}")
    for name in named:
        PLANTS[name]()
    sys.exit(protocol.main([]))
