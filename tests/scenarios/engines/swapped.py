"""`python swapped.py RULE`: the engine (`python -m impl.protocol`, plain
Python) with RULE of SPEC 4.1 checked before every other rule of its event:
where an event breaks an earlier rule of SPEC 4.1's order too, it names RULE,
where SPEC names the earlier one. Each check restates RULE's words in SPEC
4.1's table, on the planner's own state."""

import os
import sys
from collections.abc import Callable
from typing import Any

if __name__ == "__main__":  # run as a program; an import leaves the environment alone
    os.environ["OPTCHAT_PURE"] = "1"

from impl import protocol  # noqa: E402
from impl.errors import Refused  # noqa: E402
from impl.planner import Planner  # noqa: E402


def no_utf8(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)  # a surrogate has no UTF-8 form


def halves_unbuilt(planner: Planner, node: tuple[int, int]) -> bool:
    try:
        return not planner._halves_built(node)
    except IndexError:  # a merge past the log: its halves are not even logged
        return True


def ahead_broken(planner: Planner, node: tuple[int, int]) -> bool:
    queue = planner.queue
    lifted = queue.waiting and not planner.profile.ahead_in_wait
    return node[0] == 0 and not lifted and queue.unbuilt_before(node[1]) >= planner.constants.ahead


CHECKS: dict[tuple[str, str], Callable[..., bool]] = {
    ("message", "utf8"): lambda p, kind, text: no_utf8(text),
    ("end", "utf8"): lambda p, node, line: no_utf8(line),
    ("end", "line_fits"): lambda p, node, line: (
        not 1 <= len(line.encode("utf-8", "surrogatepass")) <= p.constants.node
    ),
    ("settle", "settle_needs_summaries"): lambda p: not p.settled(),
    ("start", "need_first"): lambda p, node: (
        p.queue.waiting and p.profile.need_first and not p.chat.has_line(node)
    ),
    ("start", "jobs_bound"): lambda p, node: len(p.queue.running) >= p.constants.jobs,
    ("start", "retry_waits"): lambda p, node: node in p.queue.held,
    ("start", "ahead_bound"): ahead_broken,
    ("start", "merge_needs_halves"): halves_unbuilt,
}
"""For each event (a Planner method) and rule, whether the event breaks the rule."""


def checked_first(method: str, rule: str) -> None:
    """Planner.`method` refuses with `rule` before anything else it checks."""
    original = getattr(Planner, method)
    broken = CHECKS[method, rule]

    def patched(self: Planner, *args: Any) -> Any:
        if broken(self, *args):
            self.forget_batch()
            raise Refused(rule, f"{rule}, checked first")
        return original(self, *args)

    setattr(Planner, method, patched)


if __name__ == "__main__":
    for method, rule in CHECKS:
        if rule == sys.argv[1]:
            checked_first(method, rule)
    sys.exit(protocol.main(sys.argv[2:]))
