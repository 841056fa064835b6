"""The deviant engine (`python -m impl.protocol --profile deviant.json`) with
one real bug that is no declared deviation: its line chooser goes on after a
follow-up exactly as long as the best so far (SPEC 5 ends the tries there).
Plain Python, so that the patch reaches the planner."""

import os
import sys

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import line, protocol  # noqa: E402
from impl.text import size  # noqa: E402


def offer(self: line.LineChooser, raw: str) -> str | None:
    self.read += 1
    reply = raw.strip(self.space)
    if not reply:
        return self.finish()
    if size(reply) <= self.limit:
        return reply
    if self.best is not None and size(reply) > size(self.best):
        return self.finish()
    self.best = reply
    return self.finish() if self.read >= self.tries else None


if __name__ == "__main__":
    line.LineChooser.offer = offer  # type: ignore[method-assign]
    sys.exit(protocol.main(sys.argv[1:]))
