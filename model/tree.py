"""The chat log and the built nodes of the tree (SPEC 1, 2).

The log maps message ids to their lines (`word: text`, SPEC 1, 10); the built nodes are one trie per
level keyed by the node index, holding the node's text. Both are persistent:
a new state shares everything but the changed path with the old one.
"""

from __future__ import annotations

from dataclasses import dataclass

from model import node as nodes
from model import text as texts
from model import trie
from model.bits import Bits
from model.node import Node

Levels = tuple["trie.Trie[str] | None", ...]


@dataclass(frozen=True, slots=True)
class Tree:
    """The logged messages and the built nodes (SPEC 1, 2)."""

    messages: trie.Trie[str] | None = None
    built: Levels = ()


@dataclass(frozen=True, slots=True)
class Built:
    """What building one node did: the nodes built (the node, then free parents
    in turn) and the merge that became ready, if any (SPEC 2)."""

    tree: Tree
    nodes: tuple[Node, ...]
    ready: Node | None


def message(tree: Tree, i: Bits) -> str:
    """Message i's line (SPEC 1)."""
    found = trie.lookup(tree.messages, i)
    if found is None:
        raise KeyError(f"no message {i}")
    return found


def text(tree: Tree, node: Node) -> str | None:
    """The node's text, or None while it is not built (SPEC 2)."""
    if node.level >= len(tree.built):
        return None
    return trie.lookup(tree.built[node.level], node.index)


def is_built(tree: Tree, node: Node) -> bool:
    """Whether the node is built (SPEC 2)."""
    return text(tree, node) is not None


def source(tree: Tree, node: Node) -> str:
    """What a node summarizes: a leaf's message line; a merge's left text, a
    newline, its right text (SPEC 2). A merge's halves must be built."""
    if node.level == 0:
        return message(tree, node.index)
    left, right = nodes.halves(node)
    left_text, right_text = text(tree, left), text(tree, right)
    if left_text is None or right_text is None:
        raise ValueError(f"{nodes.name(node)} has an unbuilt half")
    return f"{left_text}\n{right_text}"


def is_free(source_text: str, node_bytes: int) -> bool:
    """A source of at most NODE bytes is its own node, built with no call (SPEC 2)."""
    return texts.size(source_text) <= node_bytes


def log_message(tree: Tree, i: Bits, line: str) -> Tree:
    """The tree with message i logged as its line; no node is built by this (SPEC 1)."""
    return Tree(trie.insert(tree.messages, i, line), tree.built)


def _store(tree: Tree, node: Node, line: str) -> Tree:
    levels = tree.built + (None,) * (node.level + 1 - len(tree.built))
    level = trie.insert(levels[node.level], node.index, line)
    return Tree(tree.messages, levels[: node.level] + (level,) + levels[node.level + 1 :])


def build(tree: Tree, node: Node, line: str, node_bytes: int) -> Built:
    """Build `node` with `line`, then every parent whose halves are now both
    built and whose source is free; a parent that needs a call becomes ready
    (SPEC 2: built once; every complete node is eventually wanted)."""
    if is_built(tree, node):
        raise ValueError(f"{nodes.name(node)} is already built")
    made: list[Node] = []
    while True:
        tree = _store(tree, node, line)
        made.append(node)
        if not is_built(tree, nodes.sibling(node)):
            return Built(tree, tuple(made), None)
        up = nodes.parent(node)
        up_source = source(tree, up)
        if not is_free(up_source, node_bytes):
            return Built(tree, tuple(made), up)
        node, line = up, up_source
