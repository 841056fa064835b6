"""A corpus split among the shards of a campaign (`corpus --shard K/N`): the
scenarios dealt by size, the largest first, each to the shard holding the
fewest bytes so far (ties to the lower shard), so that shards take about
equal time; the same split on every machine, from the files alone."""

from __future__ import annotations

from pathlib import Path

from scenarios.shard import Shard


def size(path: Path) -> int:
    """A scenario's weight: its bytes (replay time grows with them)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0  # reading it later says what is wrong, in the shard it falls to


def dealt(paths: list[Path], count: int) -> list[list[Path]]:
    """The paths in `count` parts of about equal bytes, each in the order given."""
    loads = [0] * count
    owner = [0] * len(paths)
    order = sorted(range(len(paths)), key=lambda k: (-size(paths[k]), str(paths[k]), k))
    for k in order:
        lightest = min(range(count), key=lambda s: (loads[s], s))
        owner[k] = lightest
        loads[lightest] += size(paths[k])
    return [[p for k, p in enumerate(paths) if owner[k] == s] for s in range(count)]


def share(paths: list[Path], shard: Shard) -> list[Path]:
    """The scenarios `shard` checks, in the order given."""
    return dealt(paths, shard.count)[shard.index - 1]
