"""`python -m impl.protocol` with one planted break (issue 24's shrinking
measure): the shrinking flag is not carried to the next message, so a
batch that stopped above FLOOR runs again only once the view is over
CEILING (SPEC 3.3 runs it at every later message). Plain Python, so that
the patch reaches the planner."""

import os
import sys

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import protocol, view  # noqa: E402


def receive(self: view.View, ceiling: int, floor: int) -> bool:
    if self.size > ceiling:
        self.batch(floor)
        return True
    self.merges = ()
    return False


if __name__ == "__main__":
    view.View.receive = receive  # type: ignore[method-assign]
    sys.exit(protocol.main(sys.argv[1:]))
