"""The constants of SPEC 7, every one a parameter with the SPEC default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

PLACEHOLDER: Final = "(not summarized yet: zoom it)"
"""What a line whose node is not built shows (SPEC 3, 7)."""

KINDS = ("user", "unii", "tool", "echo", "work", "note")
"""The message kinds (SPEC 1)."""


@dataclass(frozen=True, slots=True)
class Constants:
    """SPEC 7. Sizes in UTF-8 bytes, `tool_cap` and `split` in characters,
    `retry` and `settle_timeout` in seconds.

    `split` is not in SPEC 7: it is the most characters one message holds
    when `Chat.append` splits a long non-tool text over several messages
    (SPEC 1 keeps such text whole). It defaults to the tool cap, so no
    message text is ever longer than a clipped tool output.
    """

    node: int = 512
    ceiling: int = 128_000
    floor: int = 64_000
    cceiling: int = 32_000
    cfloor: int = 16_000
    jobs: int = 8
    ahead: int = 8
    tries: int = 5
    failures: int = 3
    retry: float = 10.0
    settle_timeout: float = 20.0
    tool_cap: int = 30_000
    split: int = 30_000

    def __post_init__(self) -> None:
        # A line cut to NODE bytes must keep at least one whole character.
        if self.node < 4:
            raise ValueError(f"node must be at least 4 bytes, not {self.node}")
        if not 0 <= self.floor <= self.ceiling:
            raise ValueError(f"need 0 <= floor <= ceiling, not {self.floor}, {self.ceiling}")
        if not 0 <= self.cfloor <= self.cceiling:
            raise ValueError(f"need 0 <= cfloor <= cceiling, not {self.cfloor}, {self.cceiling}")
        for name in ("jobs", "ahead", "tries", "failures", "split"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.tool_cap < 100:
            raise ValueError(f"tool_cap must leave room for its marker, not {self.tool_cap}")
