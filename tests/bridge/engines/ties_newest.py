"""`python -m impl.protocol` with one planted break (issue 24's shrinking
measure): among mergeable pairs equally due, the newest merges first
(SPEC 3.1 says the oldest). Plain Python, so that the patch reaches the
planner."""

import os
import sys

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import protocol, view  # noqa: E402


def most_due(self: view.View) -> tuple[int, int] | None:
    top, pair = self.top, None
    best_due = best_first = -1
    for level, heap in self.pairs.items():
        first_message = heap[0] << level
        due = (self.count + 1 - first_message) << (top - level)
        if due > best_due or (due == best_due and first_message > best_first):
            best_due, best_first, pair = due, first_message, (level, heap[0])
    return pair


if __name__ == "__main__":
    view.View.most_due = most_due  # type: ignore[method-assign]
    sys.exit(protocol.main(sys.argv[1:]))
