"""One shard of a campaign spread over N machines (`--shard K/N`): which part
of a search it takes. Generated histories (laws, fuzz) are split by seed:
shard K of a run with seed S explores from its own seed, the same on every
machine given K, N and S; scenario files (corpus) are split by the
bridge (bridge/runs/shards.py)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

MAX_SHARDS = 1000
"""The most machines a campaign is spread over: far more than any matrix of
CI jobs, few enough that dealing a corpus among them is cheap."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int = 1
    count: int = 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def first(self) -> bool:
        """Whether this shard also runs what is not split (the laws' proofs)."""
        return self.index == 1

    def seed(self, run_seed: int) -> int:
        """The seed this shard explores from, given the whole run's: the run's
        own for a run of one shard, else 64 bits of a hash of the three, so
        that no two shards (nor their processes, exploring from seed + 0, 1,
        2 ... under laws --jobs) meet. Not the run's seed plus a stride:
        Hypothesis draws alike from some seeds 2**32 apart."""
        if self.count == 1:
            return run_seed
        named = f"optchat-spec shard {self.index}/{self.count} of seed {run_seed}"
        return int.from_bytes(hashlib.sha256(named.encode()).digest()[:8], "big")

    def share(self, total: int) -> int:
        """This shard's part of `total` histories: the first `total % count`
        shards take one more, so the shares add up to `total`."""
        return total // self.count + (self.index <= total % self.count)


def parse(text: str) -> Shard:
    """`K/N` as a Shard; ValueError saying, in one line, what is wrong."""
    found = re.fullmatch(r"([0-9]{1,9})/([0-9]{1,9})", text.strip())
    if found is None:
        raise ValueError(f"--shard {text!r}: not K/N (shard K of N, as 1/4)")
    shard = Shard(int(found[1]), int(found[2]))
    if not 1 <= shard.count <= MAX_SHARDS:
        raise ValueError(f"--shard {text}: N must be from 1 to {MAX_SHARDS} (machines)")
    if not 1 <= shard.index <= shard.count:
        raise ValueError(f"--shard {text}: K must be from 1 to N ({shard.count})")
    return shard
