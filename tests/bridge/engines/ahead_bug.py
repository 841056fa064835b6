"""`python -m impl.protocol` with one planted off-by-one bug for `diagnose`
to find (issue 34): a leaf is offered (and may start) with AHEAD unbuilt
leaves before it, where SPEC 4 offers it with fewer than AHEAD (MUTATION.md's
break "a leaf allowed to start with AHEAD unbuilt leaves before it"). No
option of SPEC 10 makes it right; while a turn waits it can look like
`ahead_in_wait: false`. Plain Python, so that the patch reaches the
planner. `plant()` is what the distant engine (distant.py --ahead-bug)
takes from here."""

import os
import sys
from typing import Any

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import planner, protocol  # noqa: E402


def plant() -> None:
    """Put the bug into the engine in this process: its queue looks one leaf further."""
    init = planner.Planner.__init__

    def one_further(self: planner.Planner, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.queue.ahead += 1

    planner.Planner.__init__ = one_further  # type: ignore[method-assign]


if __name__ == "__main__":
    plant()
    sys.exit(protocol.main(sys.argv[1:]))
