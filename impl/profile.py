"""The engine's profile: the documented deviations from SPEC it can run with
(SPEC 10). `Profile()` is SPEC itself.

Restated here from SPEC 10 (the engine never imports the model). `calls`
is not the planner's business: who starts calls is decided by whoever
drives the planner (the compactor starts its own; `impl.protocol` follows
the profile it is given).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from impl.constants import KINDS

OPTIONS = ("trim_lines", "kind_words", "need_first", "failure_cap", "calls", "ahead_in_wait")
"""The options of SPEC 10, in its order."""


@dataclass(frozen=True)
class Profile:
    """SPEC 10: `trim_lines`, `kind_words` (kind -> word), `need_first`,
    `capped` (failure_cap "failures", not "none"), `self_calls` (calls
    "self", not "driven") and `ahead_in_wait`."""

    trim_lines: bool = False
    kind_words: dict[str, str] = field(default_factory=dict)
    need_first: bool = True
    capped: bool = True
    self_calls: bool = False
    ahead_in_wait: bool = True

    def __post_init__(self) -> None:
        for kind, word in self.kind_words.items():
            if kind not in KINDS:
                raise ValueError(f"kind_words maps {kind!r}, which is no kind")
            if not word or ": " in word or "\n" in word or "\r" in word:
                raise ValueError(f"the word for {kind!r} must be one line without ': '")

    def word(self, kind: str) -> str:
        """The word written before `: ` in a message's line (SPEC 1, 10)."""
        return self.kind_words.get(kind, kind)

    @classmethod
    def from_json(cls, options: dict[str, Any]) -> Profile:
        """A profile from its JSON form, `{"trim_lines": true, ...}` (SPEC 10);
        ValueError names an unknown option or a bad value."""
        if not isinstance(options, dict):
            raise ValueError("a profile is a JSON object of options")
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown profile option {unknown[0]!r}; options are {OPTIONS}")
        choices = {"failure_cap": ("failures", "none"), "calls": ("driven", "self")}
        for name, allowed in choices.items():
            if name in options and options[name] not in allowed:
                raise ValueError(f"{name} is one of {allowed}, not {options[name]!r}")
        for name in ("trim_lines", "need_first", "ahead_in_wait"):
            if name in options and not isinstance(options[name], bool):
                raise ValueError(f"{name} is true or false, not {options[name]!r}")
        words = options.get("kind_words", {})
        if not isinstance(words, dict) or not all(isinstance(w, str) for w in words.values()):
            raise ValueError("kind_words is an object from kinds to words")
        return cls(
            trim_lines=options.get("trim_lines", False),
            kind_words=dict(words),
            need_first=options.get("need_first", True),
            capped=options.get("failure_cap", "failures") == "failures",
            self_calls=options.get("calls", "driven") == "self",
            ahead_in_wait=options.get("ahead_in_wait", True),
        )

    def to_json(self) -> dict[str, Any]:
        """The profile's JSON form, every option spelled out (SPEC 10)."""
        return {
            "trim_lines": self.trim_lines,
            "kind_words": dict(self.kind_words),
            "need_first": self.need_first,
            "failure_cap": "failures" if self.capped else "none",
            "calls": "self" if self.self_calls else "driven",
            "ahead_in_wait": self.ahead_in_wait,
        }
