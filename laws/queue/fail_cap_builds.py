from laws.registry import Step, step_law
from laws.spec import name, plain
from model import bits, machine
from model import tree as trees
from model.events import Fail
from model.node import Node


def source(step: Step, node: Node) -> str:
    """The failed node's source, rebuilt from the log and the built halves."""
    level, index = plain(node)
    if level == 0:
        kind, text = trees.message(step.before.tree, node.index)
        return f"{kind}: {text}"
    left = Node(level - 1, bits.from_int(2 * index))
    right = Node(level - 1, bits.from_int(2 * index + 1))
    return f"{machine.text(step.before, left)}\n{machine.text(step.before, right)}"


@step_law
def fail_cap_builds(step: Step) -> None:
    """The FAILURES-th failure of a node builds it from its source cut to NODE bytes."""
    if not isinstance(step.event, Fail):
        return
    node = step.event.node
    failed = dict(step.before.queue.failures).get(node, 0) + 1
    text = machine.text(step.after, node)
    c = step.after.constants
    if failed < c.failures:
        assert text is None, f"{name(plain(node))} was built after {failed} failures"
        return
    cut = source(step, node).encode("utf-8")[: c.node].decode("utf-8", errors="ignore")
    assert text == cut, f"failure {failed} of {name(plain(node))} built {text!r}, not {cut!r}"
