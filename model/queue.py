"""The work queue: which compaction calls may start, and what calls do (SPEC 4).

Ready work is kept in two queues, filled when nodes are built: the unbuilt
leaves, oldest first, and the ready merges, by (level, index). The tree is
never scanned for work.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model import bits
from model import node as nodes
from model import tree as trees
from model import view as views
from model.constants import Constants
from model.errors import Refused
from model.node import Node
from model.profile import Profile
from model.tree import Built, Tree
from model.view import View


@dataclass(frozen=True, slots=True)
class Queue:
    """The compactor's state (SPEC 4).

    `unbuilt`: leaves that need a call, oldest first. `ready`: merges whose
    halves are built and that need a call, by (level, index) (or in the
    order they became ready, under `merge_order: ready`). `running`:
    calls in flight, in start order. `held`: nodes whose last call failed,
    waiting for the next message or retry tick, in the order they failed.
    `retried`: nodes let go since, not started again, in the order they were
    let go (SPEC 10, `retried`). `asked`: the replies read so far by each
    running call that asks for another (SPEC 10, `replies_out: asks`).
    `failures`: failed calls per unbuilt node. `waiting`: whether a turn
    waits for a settled view.
    """

    unbuilt: tuple[Node, ...] = ()
    ready: tuple[Node, ...] = ()
    running: tuple[Node, ...] = ()
    held: tuple[Node, ...] = ()
    retried: tuple[Node, ...] = ()
    asked: tuple[tuple[Node, tuple[str, ...]], ...] = ()
    failures: tuple[tuple[Node, int], ...] = ()
    waiting: bool = False


def _before(a: Node, b: Node) -> bool:
    """Queue order of ready merges: by level, then index (SPEC 4)."""
    return a.level < b.level or (a.level == b.level and bits.less(a.index, b.index))


def _place_by_level(ready: tuple[Node, ...], merge: Node) -> int:
    """Where `merge` goes among ready merges kept by (level, index) (SPEC 4)."""
    at = 0
    while at < len(ready) and _before(ready[at], merge):
        at += 1
    return at


def add_unbuilt_leaf(queue: Queue, leaf: Node) -> Queue:
    """A new message whose line needs a call joins the leaves, newest (SPEC 4)."""
    return replace(queue, unbuilt=queue.unbuilt + (leaf,))


def after_build(queue: Queue, built: Built, profile: Profile) -> Queue:
    """The queue once a node (and free parents above it) is built: it leaves
    every queue, and a parent that needs a call becomes ready, in its place
    by (level, index), or last under `merge_order: ready` (SPEC 2, 4, 10)."""
    done = set(built.nodes)
    ready = tuple(m for m in queue.ready if m not in done)
    if built.ready is not None:
        arrival = profile.merge_order == "ready"
        at = len(ready) if arrival else _place_by_level(ready, built.ready)
        ready = ready[:at] + (built.ready,) + ready[at:]
    return replace(
        queue,
        unbuilt=tuple(n for n in queue.unbuilt if n not in done),
        ready=ready,
        running=tuple(n for n in queue.running if n not in done),
        held=tuple(n for n in queue.held if n not in done),
        retried=tuple(n for n in queue.retried if n not in done),
        asked=tuple(a for a in queue.asked if a[0] not in done),
        failures=tuple(f for f in queue.failures if f[0] not in done),
    )


def is_line(view: View, node: Node) -> bool:
    """Whether a node is a line of the view (SPEC 3, 4: what a waiting turn needs)."""
    return views.position(view, node) is not None


def leaf_may_start(queue: Queue, leaf: Node, ahead: int) -> bool:
    """A leaf may start once fewer than AHEAD leaves before it are unbuilt,
    started or not (SPEC 4)."""
    return queue.unbuilt.index(leaf) < ahead


def jobs_taken(queue: Queue, profile: Profile) -> int:
    """How many of the JOBS places are taken: one per running call, and one
    per held node under `held_takes_job` (SPEC 4, 10)."""
    return len(queue.running) + (len(queue.held) if profile.held_takes_job else 0)


def candidates(
    queue: Queue, view: View, tree: Tree, constants: Constants, profile: Profile
) -> tuple[Node, ...]:
    """The calls that may start now, in queue order: unbuilt leaves oldest
    first (within AHEAD), then ready merges by (level, index), the nodes let
    go after a failure before both under `retried: first`; none running or
    held after a failure; while a turn waits only the view's unbuilt lines
    (under `need_first`), and every one of them (with `ahead_in_wait` off);
    every unbuilt leaf, whatever AHEAD, under `ahead_limit: none`;
    as many as the JOBS places not taken leave room for (SPEC 4, 10)."""
    room = constants.jobs - jobs_taken(queue, profile)
    if room <= 0:
        return ()
    busy = set(queue.running) | set(queue.held)
    bound = profile.ahead_applies(queue.waiting)
    leaves = queue.unbuilt[: constants.ahead] if bound else queue.unbuilt
    work = [leaf for leaf in leaves if leaf not in busy]
    if queue.waiting and profile.need_first:
        work = [leaf for leaf in work if is_line(view, leaf) and not trees.is_built(tree, leaf)]
    else:
        work += [merge for merge in queue.ready if merge not in busy]
    if profile.retried == "first" and queue.retried:
        first = [node for node in queue.retried if node in work]
        work = first + [node for node in work if node not in first]
    return tuple(work[:room])


def check_start(
    queue: Queue,
    view: View,
    tree: Tree,
    count: bits.Bits,
    node: Node,
    constants: Constants,
    profile: Profile,
) -> None:
    """Refuse a call start that breaks a rule of SPEC 4, naming the first
    rule it breaks in the order of SPEC 4.1."""
    name = nodes.name(node)
    if bits.less(count, nodes.end(node)):
        raise Refused("node_exists", f"{name} covers messages not logged yet")
    if trees.is_built(tree, node):
        raise Refused("built_once", f"{name} is already built")
    if node in queue.running:
        raise Refused("one_call_per_node", f"a call for {name} is already running")
    if queue.waiting and profile.need_first and not is_line(view, node):
        raise Refused("need_first", f"a turn waits and {name} is not a line of the view")
    if jobs_taken(queue, profile) >= constants.jobs:
        raise Refused("jobs_bound", f"{constants.jobs} calls already run (or wait to retry)")
    if node in queue.held:
        raise Refused("retry_waits", f"{name} failed; it waits for the next message or retry")
    bound = profile.ahead_applies(queue.waiting)
    if node.level == 0 and bound and not leaf_may_start(queue, node, constants.ahead):
        raise Refused("ahead_bound", f"{constants.ahead} or more leaves before {name} are unbuilt")
    if node.level > 0 and not all(trees.is_built(tree, half) for half in nodes.halves(node)):
        raise Refused("merge_needs_halves", f"a half of {name} is not built")
    if node not in candidates(queue, view, tree, constants, profile):
        raise Refused("queue_order", f"{name} is behind the nodes the queue starts first")


def start(queue: Queue, node: Node) -> Queue:
    """A call starts; a node let go after a failure is no longer waiting to
    start again (SPEC 4, 10)."""
    return replace(
        queue,
        running=queue.running + (node,),
        retried=tuple(n for n in queue.retried if n != node),
    )


def conversation(queue: Queue, node: Node) -> tuple[str, ...]:
    """The replies a running call that asks for another has read so far
    (SPEC 5, 10, `replies_out: asks`)."""
    return dict(queue.asked).get(node, ())


def ask(queue: Queue, node: Node, replies: tuple[str, ...]) -> Queue:
    """A running call read `replies` and asks for another reply (SPEC 5, 10)."""
    others = tuple(a for a in queue.asked if a[0] != node)
    return replace(queue, asked=others + ((node, replies),))


def check_running(queue: Queue, node: Node, rule: str) -> None:
    """Refuse an outcome for a node with no call running (SPEC 4)."""
    if node not in queue.running:
        raise Refused(rule, f"no call for {nodes.name(node)} is running")


def fail(queue: Queue, node: Node) -> tuple[Queue, int]:
    """A call fails: count it and hold the node until the next message or
    retry tick; returns the node's failure count (SPEC 4)."""
    failed = dict(queue.failures).get(node, 0) + 1
    others = tuple(f for f in queue.failures if f[0] != node)
    return (
        replace(
            queue,
            running=tuple(n for n in queue.running if n != node),
            held=queue.held + (node,),
            asked=tuple(a for a in queue.asked if a[0] != node),
            failures=others + ((node, failed),),
        ),
        failed,
    )


def retry(queue: Queue) -> Queue:
    """Failed nodes may start again, let go in the order they failed: at the
    next message (unless the profile says `retry: tick`) or after RETRY
    (SPEC 4, 10)."""
    return replace(queue, held=(), retried=queue.retried + queue.held)


def begin_wait(queue: Queue, need_first: bool) -> Queue:
    """A turn waits: under `need_first`, running merge calls stop, without
    counting as failures, and what they read is forgotten (SPEC 4, 10, law
    need_first_running)."""
    if not need_first:
        return replace(queue, waiting=True)
    return replace(
        queue,
        waiting=True,
        running=tuple(n for n in queue.running if n.level == 0),
        asked=tuple(a for a in queue.asked if a[0].level == 0),
    )


def end_wait(queue: Queue) -> Queue:
    """The waiting turn goes on (SPEC 4)."""
    return replace(queue, waiting=False)
