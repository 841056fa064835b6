"""A persistent binary trie keyed by bit lists (SPEC 2: the built nodes).

A trie is `None` (empty) or a `Trie` holding the value stored at its own key
and the sub-tries for keys continuing with bit 0 and bit 1. Keys are walked
lowest bit first, so a lookup takes as many steps as the key has bits. An
insert rebuilds only the path to its key: older states keep sharing the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from model.bits import Bits

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Trie(Generic[V]):
    """A trie node: the value at its own key, and the sub-tries for keys that
    continue with bit 0 and with bit 1 (SPEC 2)."""

    value: V | None
    zero: Trie[V] | None
    one: Trie[V] | None


def lookup(trie: Trie[V] | None, key: Bits) -> V | None:
    """The value stored at `key`, or None (SPEC 2)."""
    for bit in key:
        if trie is None:
            return None
        trie = trie.one if bit else trie.zero
    return None if trie is None else trie.value


def insert(trie: Trie[V] | None, key: Bits, value: V) -> Trie[V]:
    """A trie equal to `trie` except that `key` holds `value` (SPEC 2)."""
    if trie is None:
        trie = Trie(None, None, None)
    if not key:
        return Trie(value, trie.zero, trie.one)
    if key[0]:
        return Trie(trie.value, trie.zero, insert(trie.one, key[1:], value))
    return Trie(trie.value, insert(trie.zero, key[1:], value), trie.one)
