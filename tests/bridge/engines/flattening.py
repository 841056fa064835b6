"""`python -m impl.protocol` with three differences real engines have
(issue 44), for `--keep-going` to see past when they are not declared
(bridge/checking/adopt.py):

- a call's line is installed flattened: each `\\r` and each `\\n` one space
  (a `\\r\\n` two), so the line keeps its size;
- the views' sizes are measured with each row's head: `ID+N|` and the
  newline a render puts after the row count, as well as the text;
- a batch also runs when a call ends and builds a node, while the chat view
  is shrinking (SPEC 3.3 runs one only at a message).

Each shows early in nearly every scenario of the corpus (the corpus's texts
hold `\\r\\n`), and stops a replay that does not adopt. SPEC 10 has an
option for each now (`flat_lines`, `row_sizes`, `batches: builds`): with
`--declares JSON` the engine declares that profile in its answer to the
header while its planner runs SPEC's own with the three differences above
written in, as an engine written apart from this project would. With `--bug` it also
has ahead_bug.py's planted off-by-one bug (a leaf offered with AHEAD
unbuilt leaves before it): a real bug, no difference to adopt. Plain
Python, so that the patches reach the planner."""

import json
import os
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"
sys.path.insert(0, str(Path(__file__).parent))

from impl import planner, protocol  # noqa: E402
from impl import view as views  # noqa: E402
from impl.profile import Profile  # noqa: E402
from impl.text import size  # noqa: E402
from impl.tree import Node, name  # noqa: E402


def head(node: Node) -> int:
    """The bytes a row adds to its text: `ID+N|` and a newline."""
    return len(name(node)) + 2


def plant() -> None:
    """Put the three differences into the engine in this process."""
    install, append, merge = planner.Planner._install, views.View.append, views.View.merge

    def flattened(
        self: planner.Planner, node: Node, line: str, line_size: int = -1
    ) -> planner.Outcome:
        line = line.replace("\r", " ").replace("\n", " ")
        out = install(self, node, line, size(line))
        if out.built and self.chat.shrinking:
            c = self.constants
            self.chat.batch(c.floor)
            if self.chat.merges:
                self.cview = self.chat.copy()
                self.cview.batch(c.cfloor)
        return out

    def appended(self: views.View, leaf: Node) -> None:
        append(self, leaf)
        self.size += head(leaf)

    def merged(self: views.View, pair: Node) -> Node:
        up = merge(self, pair)
        self.size += head(up) - head(pair) - head((pair[0], pair[1] + 1))
        return up

    planner.Planner._install = flattened  # type: ignore[method-assign]
    views.View.append = appended  # type: ignore[method-assign]
    views.View.merge = merged  # type: ignore[method-assign]


def declare(said: dict[str, Any]) -> None:
    """Answer the header declaring the profile `said`, whatever the planner runs."""
    answer = protocol.ready

    def ready(profile: Profile) -> dict[str, Any]:
        return {**answer(profile), "profile": said}

    protocol.ready = ready


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--bug" in args:
        import ahead_bug

        ahead_bug.plant()
        args.remove("--bug")
    plant()
    if "--declares" in args:
        at = args.index("--declares")
        declare(json.loads(args[at + 1]))
        del args[at : at + 2]
    sys.exit(protocol.main(args))
