"""`python -m impl.protocol` with one planted bug for `bridge fuzz` to find:
the failure cap builds a node from its source one failure late (at the
FAILURES + 1-th failure, where SPEC 4 says the FAILURES-th). Plain Python,
so that the patch reaches the planner. `plant()` is what planted.py takes
from here."""

import os
import sys

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import planner, protocol  # noqa: E402
from impl.tree import Node  # noqa: E402


def plant() -> None:
    """Put the bug into the engine in this process."""

    def failed(self: planner.Planner, node: Node) -> planner.Outcome:
        if self.queue.fail(node) <= self.constants.failures or not self.profile.capped:
            return planner.Outcome([])
        return planner.Outcome(self.build_from_source(node))

    planner.Planner._failed = failed  # type: ignore[method-assign]


if __name__ == "__main__":
    plant()
    sys.exit(protocol.main(sys.argv[1:]))
