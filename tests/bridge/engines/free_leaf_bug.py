"""`python -m impl.protocol` with one planted bug for `diagnose` and `fuzz`
to find (issue 21): during its own message's batch, a free leaf (built at
once, SPEC 2) is counted in the view's size as the 29-byte placeholder
(SPEC 3), not as its line; after the batch the size is right again. Plain
Python, so that the patch reaches the planner. `plant()` is what the
partial engine (partial.py --bug) takes from here."""

import os
import sys

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import planner, protocol, view  # noqa: E402


def plant() -> None:
    """Put the bug into the engine in this process."""
    right_append = view.View.append

    def append(self: view.View, leaf: tuple[int, int]) -> None:
        """The leaf's line joins the view counted as a placeholder."""
        found = self.tree.sizes[0][leaf[1]]
        right_append(self, leaf)
        if found >= 0:
            self.size += view.PLACEHOLDER_SIZE - found

    def message(self: planner.Planner, kind: str, text: str) -> planner.Outcome:
        """A message as SPEC says, but its free leaf counted as a placeholder
        until both views' batches are over (a compaction view copied from
        the chat view carries the same error)."""
        made = self.admit(kind, text)
        found = self.tree.sizes[0][self.count - 1]
        owed = found - view.PLACEHOLDER_SIZE if found >= 0 else 0
        chat_ran = self.chat_batch()
        cview_ran = self.cview_batch()
        self.chat.size += owed
        self.cview.size += owed
        return planner.Outcome(made, chat_ran, cview_ran)

    view.View.append = append  # type: ignore[method-assign]
    planner.Planner.message = message  # type: ignore[method-assign]


if __name__ == "__main__":
    plant()
    sys.exit(protocol.main(sys.argv[1:]))
