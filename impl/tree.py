"""Tree nodes, the message log and the built nodes (SPEC 1, 2).

A node is `(l, i)` with machine integers: the 2^l messages from `i << l`.
"""

from __future__ import annotations

from array import array

from impl.text import message_line, size

Node = tuple[int, int]
"""`(l, i)`: level and index (SPEC 2)."""


def first(node: Node) -> int:
    """The node's first message, `i*2^l` (SPEC 2)."""
    return node[1] << node[0]


def end(node: Node) -> int:
    """One past the node's last message, `(i+1)*2^l` (SPEC 2)."""
    return (node[1] + 1) << node[0]


def parent(node: Node) -> Node:
    """`(l+1, i/2)` (SPEC 2)."""
    return node[0] + 1, node[1] >> 1


def sibling(node: Node) -> Node:
    """`(l, i xor 1)` (SPEC 2)."""
    return node[0], node[1] ^ 1


def halves(node: Node) -> tuple[Node, Node]:
    """`(l-1, 2i)` and `(l-1, 2i+1)`, the lines a merge joins (SPEC 2)."""
    level, index = node
    return (level - 1, 2 * index), (level - 1, 2 * index + 1)


def name(node: Node) -> str:
    """`start+count`, e.g. `(3, 5)` is `40+8` (SPEC 2)."""
    return f"{first(node)}+{1 << node[0]}"


class Tree:
    """The logged messages and the built nodes' texts and sizes (SPEC 1, 2).

    Texts and sizes are kept per level in lists indexed by the node index
    (None and -1 while unbuilt): a node costs a list slot, not a dict entry,
    which keeps a chat of a million messages well under a gigabyte."""

    def __init__(self, node_bytes: int) -> None:
        self.node_bytes = node_bytes
        self.messages: list[tuple[str, str]] = []
        self.texts: list[list[str | None]] = []
        self.sizes: list[array[int]] = []

    @property
    def count(self) -> int:
        """T, the number of messages (SPEC 1)."""
        return len(self.messages)

    def text(self, node: Node) -> str | None:
        """The node's text, or None while unbuilt (SPEC 2)."""
        level, index = node
        if level < len(self.texts) and index < len(self.texts[level]):
            return self.texts[level][index]
        return None

    def is_built(self, node: Node) -> bool:
        """Whether the node is built (SPEC 2)."""
        return self.text(node) is not None

    def size(self, node: Node) -> int | None:
        """The byte size of a built node's text, or None while unbuilt (SPEC 3)."""
        level, index = node
        if level < len(self.sizes) and index < len(self.sizes[level]):
            found = self.sizes[level][index]
            return None if found < 0 else found
        return None

    def _store(self, node: Node, line: str) -> None:
        level, index = node
        while len(self.texts) <= level:
            self.texts.append([])
            self.sizes.append(array("l"))
        texts, sizes = self.texts[level], self.sizes[level]
        if len(texts) <= index:
            grow = index + 1 - len(texts)
            texts.extend([None] * grow)
            sizes.extend([-1] * grow)
        texts[index] = line
        sizes[index] = size(line)

    def source(self, node: Node) -> str:
        """A leaf's message line; a merge's left text, a newline, its right
        text (SPEC 2). KeyError for a message not logged or an unbuilt half."""
        if node[0] == 0:
            return message_line(*self.messages[node[1]])
        left, right = (self.text(half) for half in halves(node))
        if left is None or right is None:
            raise KeyError(f"{name(node)} has an unbuilt half")
        return f"{left}\n{right}"

    def build(self, node: Node, line: str) -> tuple[list[Node], Node | None]:
        """Build `node`, then every parent whose halves are now built and whose
        source is free (at most NODE bytes); returns the nodes built, in order,
        and the parent that became ready for a call, if any (SPEC 2)."""
        made: list[Node] = []
        while True:
            self._store(node, line)
            made.append(node)
            if not self.is_built(sibling(node)):
                return made, None
            up = parent(node)
            up_source = self.source(up)
            if size(up_source) > self.node_bytes:
                return made, up
            node, line = up, up_source
