"""Tree nodes, the message log and the built nodes (SPEC 1, 2).

A node is `(l, i)` with machine integers: the 2^l messages from `i << l`.
"""

from __future__ import annotations

from impl.text import message_line

Node = tuple[int, ...]
"""`(l, i)`: level and index (SPEC 2). Typed as a tuple of any length so
that the C build keeps a node as the one Python tuple it is: a pair type
would be unpacked into machine integers at every call and packed into a new
tuple each time a node goes into a list, a dict or a set, or back to a
caller (perf put making and freeing tuples and integers at a tenth of the
engine's time on the corpus before, 7 % after)."""

LEVELS = 64
"""Levels 0 to 63: a chat of 2^64 messages is out of reach, so no node is higher."""


def first(node: Node) -> int:
    """The node's first message, `i*2^l` (SPEC 2)."""
    return node[1] << node[0]


def end(node: Node) -> int:
    """One past the node's last message, `(i+1)*2^l` (SPEC 2)."""
    return (node[1] + 1) << node[0]


def halves(node: Node) -> tuple[Node, Node]:
    """`(l-1, 2i)` and `(l-1, 2i+1)`, the lines a merge joins (SPEC 2)."""
    level, index = node
    return (level - 1, 2 * index), (level - 1, 2 * index + 1)


def name(node: Node) -> str:
    """`start+count`, e.g. `(3, 5)` is `40+8` (SPEC 2)."""
    return f"{first(node)}+{1 << node[0]}"


class Tree:
    """The logged messages (as `(kind, text)`; `words` maps a kind to the
    word its line starts with, when it is not the kind itself, SPEC 10) and
    the built nodes' texts and sizes (SPEC 1, 2).

    Texts and sizes are kept per level in lists indexed by the node index
    (None and -1 while unbuilt): a node costs two list slots and an int, not
    a dict entry, which keeps a chat of a million messages well under a
    gigabyte. Sizes are a list, not an `array`: the C build reads a list's
    ints directly, and an array's through Python's item protocol. Level l
    has a slot for every node inside the log, `T >> l` of them, added as
    messages arrive, so a node inside the log is found without a bounds check."""

    def __init__(self, node_bytes: int, words: dict[str, str] | None = None) -> None:
        self.node_bytes = node_bytes
        self.words = words or {}
        self.messages: list[tuple[str, str]] = []
        self.texts: list[list[str | None]] = [[] for _ in range(LEVELS)]
        self.sizes: list[list[int]] = [[] for _ in range(LEVELS)]

    @property
    def count(self) -> int:
        """T, the number of messages (SPEC 1)."""
        return len(self.messages)

    def log(self, kind: str, text: str) -> None:
        """Message T is logged; the nodes it completes get their slots (SPEC 1, 2)."""
        self.messages.append((kind, text))
        count = len(self.messages)
        texts, sizes = self.texts, self.sizes
        level = 0
        while True:
            texts[level].append(None)
            sizes[level].append(-1)
            if count >> level & 1:
                return
            level += 1

    def inside(self, node: Node) -> bool:
        """Whether the node's messages are all logged (SPEC 2)."""
        level, index = node
        return 0 <= level < len(self.texts) and 0 <= index < len(self.texts[level])

    def text(self, node: Node) -> str | None:
        """The node's text, or None while unbuilt (SPEC 2)."""
        return self.texts[node[0]][node[1]] if self.inside(node) else None

    def is_built(self, node: Node) -> bool:
        """Whether the node is built (SPEC 2)."""
        return self.text(node) is not None

    def line(self, i: int) -> str:
        """Message i's line, `word: text` with the engine's word for its kind
        (SPEC 1, 10)."""
        kind, text = self.messages[i]
        return message_line(self.words.get(kind, kind), text)

    def source(self, node: Node) -> str:
        """A leaf's message line; a merge's left text, a newline, its right
        text (SPEC 2). KeyError for a message not logged or an unbuilt half."""
        if not self.inside(node):
            raise KeyError(f"node {node} is not inside the log")
        if node[0] == 0:
            return self.line(node[1])
        left, right = [self.text(half) for half in halves(node)]
        if left is None or right is None:
            raise KeyError(f"{name(node)} has an unbuilt half")
        return f"{left}\n{right}"

    def build(self, node: Node, line: str, line_size: int) -> tuple[list[Node], Node | None]:
        """Build `node` (inside the log) with its line of `line_size` bytes,
        then every parent whose halves are now built and whose source is free
        (at most NODE bytes); returns the nodes built, in order, and the
        parent that became ready for a call, if any (SPEC 2). A parent's
        source size is its halves' sizes plus the newline, so no source is
        made to be measured."""
        level, index = node
        texts, sizes = self.texts, self.sizes
        made: list[Node] = []
        while True:
            level_texts, level_sizes = texts[level], sizes[level]
            level_texts[index] = line
            level_sizes[index] = line_size
            made.append((level, index))
            other = index ^ 1
            if other >= len(level_texts) or level_texts[other] is None:
                return made, None
            left = index & ~1
            up_size = level_sizes[left] + 1 + level_sizes[left + 1]
            level, index = level + 1, index >> 1
            if up_size > self.node_bytes:
                return made, (level, index)
            line = f"{level_texts[left]}\n{level_texts[left + 1]}"
            line_size = up_size
