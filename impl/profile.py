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

CHOICES = {
    "failure_cap": ("failures", "none"),
    "calls": ("driven", "self"),
    "empty_chat": ("tags", "blank_line"),
    "retry": ("message", "tick"),
    "merge_order": ("level", "ready"),
    "resume": ("settle", "self"),
    "empty_reply": ("ends", "fails"),
    "not_shorter": ("stops", "goes_on"),
    "retried": ("in_place", "first"),
    "zoom_one": ("line", "headed"),
    "zoom_halves": ("tags", "bare"),
    "zoom_unbuilt": ("shown", "refused"),
    "cut": ("character", "word"),
    "overlong": ("cut", "kept"),
    "replies_out": ("ends", "asks"),
    "given_line": ("final", "reply", "cut"),
    "trim_set": ("unicode", "javascript", "ascii"),
    "free_leaves": ("at_once", "queued"),
    "ahead_limit": ("bound", "none"),
    "batches": ("messages", "builds"),
}
"""The options that are one of a few strings, SPEC's first."""

FLAGS = {
    "retried": ("retried_first", "first"),
    "zoom_one": ("zoom_headed", "headed"),
    "zoom_halves": ("zoom_bare", "bare"),
    "zoom_unbuilt": ("zoom_refuses_unbuilt", "refused"),
    "cut": ("word_cut", "word"),
    "overlong": ("keeps_overlong", "kept"),
    "replies_out": ("asks_again", "asks"),
    "free_leaves": ("queues_free_leaves", "queued"),
}
"""The two-valued options the engine keeps as flags, as it keeps `calls`,
`failure_cap` and `retry`: each flag's field, and the value that sets it."""

STRINGS = tuple(
    name for name in CHOICES if name not in ("failure_cap", "calls", "retry") and name not in FLAGS
)
"""The options of CHOICES kept as the string itself."""


@dataclass(frozen=True)
class Profile:
    """SPEC 10: `trim_lines`, `kind_words` (kind -> word), `need_first`,
    `capped` (failure_cap "failures", not "none"), `self_calls` (calls
    "self", not "driven"), `ahead_in_wait`, `empty_chat`, `kinds` (the
    kinds it takes, in SPEC 1's order), `retry_at_message` (retry
    "message", not "tick"), `held_takes_job`, `merge_order`, `resume`,
    `empty_reply`, `not_shorter`, `retried_first` (retried "first"),
    `zoom_headed`, `zoom_bare` and `zoom_refuses_unbuilt` (zoom_one
    "headed", zoom_halves "bare", zoom_unbuilt "refused"), `tolerance` (a
    number from 1 to 4 in hundredths), `word_cut` (cut "word"), `ellipsis`
    (one line of at most 3 bytes), `keeps_overlong` (overlong "kept"),
    `asks_again` (replies_out "asks"), `given_line`, `trim_set`, `queues_free_leaves`
    (free_leaves "queued"), `flat_lines`, `ahead_limit`, `flat_sizes`, `batches` and `row_sizes`."""

    trim_lines: bool = False
    kind_words: dict[str, str] = field(default_factory=dict)
    need_first: bool = True
    capped: bool = True
    self_calls: bool = False
    ahead_in_wait: bool = True
    empty_chat: str = "tags"
    kinds: tuple[str, ...] = KINDS
    retry_at_message: bool = True
    held_takes_job: bool = False
    merge_order: str = "level"
    resume: str = "settle"
    empty_reply: str = "ends"
    not_shorter: str = "stops"
    retried_first: bool = False
    zoom_headed: bool = False
    zoom_bare: bool = False
    zoom_refuses_unbuilt: bool = False
    tolerance: float = 1.0
    word_cut: bool = False
    ellipsis: str = ""
    keeps_overlong: bool = False
    asks_again: bool = False
    given_line: str = "final"
    trim_set: str = "unicode"
    queues_free_leaves: bool = False
    flat_lines: bool = False
    ahead_limit: str = "bound"
    flat_sizes: bool = False
    batches: str = "messages"
    row_sizes: bool = False

    def __post_init__(self) -> None:
        for name in STRINGS:
            if getattr(self, name) not in CHOICES[name]:
                raise ValueError(f"{name} is one of {CHOICES[name]}")
        hundredths = self.tolerance * 100
        if not 100 <= hundredths <= 400 or abs(hundredths - round(hundredths)) > 1e-6:
            raise ValueError(f"tolerance is from 1 to 4 in hundredths, not {self.tolerance!r}")
        try:
            ellipsis_bytes = len(self.ellipsis.encode("utf-8"))
        except UnicodeEncodeError:
            ellipsis_bytes = -1
        if not 0 <= ellipsis_bytes <= 3 or "\n" in self.ellipsis or "\r" in self.ellipsis:
            raise ValueError(f"the ellipsis is one line of at most 3 bytes, not {self.ellipsis!r}")
        if not self.kinds or list(self.kinds) != [k for k in KINDS if k in self.kinds]:
            raise ValueError(f"kinds are some of {KINDS}, at least one, each once, in that order")

        for kind, word in self.kind_words.items():
            if kind not in KINDS:
                raise ValueError(f"kind_words maps {kind!r}, which is no kind")
            if not word or ": " in word or "\n" in word or "\r" in word:
                raise ValueError(f"the word for {kind!r} must be one line without ': '")

    def word(self, kind: str) -> str:
        """The word written before `: ` in a message's line (SPEC 1, 10)."""
        return self.kind_words.get(kind, kind)

    def line_limit(self, node_bytes: int) -> int:
        """LINE: NODE, or NODE × tolerance rounded down, computed in hundredths (SPEC 5, 10)."""
        return node_bytes * round(self.tolerance * 100) // 100

    @classmethod
    def from_json(cls, options: dict[str, Any]) -> Profile:
        """A profile from its JSON form, `{"trim_lines": true, ...}` (SPEC 10);
        ValueError names an unknown option or a bad value."""
        if not isinstance(options, dict):
            raise ValueError("a profile is a JSON object of options")
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown profile option {unknown[0]!r}; options are {OPTIONS}")
        for name, allowed in CHOICES.items():
            if name in options and options[name] not in allowed:
                raise ValueError(f"{name} is one of {allowed}, not {options[name]!r}")
        for name in BOOLEANS:
            if name in options and not isinstance(options[name], bool):
                raise ValueError(f"{name} is true or false, not {options[name]!r}")
        tolerance = options.get("tolerance", 1)
        if isinstance(tolerance, bool) or not isinstance(tolerance, int | float):
            raise ValueError(f"tolerance is a number, not {tolerance!r}")
        if not isinstance(options.get("ellipsis", ""), str):
            raise ValueError(f"ellipsis is a string, not {options['ellipsis']!r}")
        kinds = options.get("kinds", list(KINDS))
        if not isinstance(kinds, list) or not all(k in KINDS for k in kinds if isinstance(k, str)):
            raise ValueError(f"kinds is a list of some of {KINDS}, not {kinds!r}")
        if not all(isinstance(k, str) for k in kinds) or len(set(kinds)) != len(kinds):
            raise ValueError(f"kinds names each kind once, as a string: not {kinds!r}")
        words = options.get("kind_words", {})
        if not isinstance(words, dict) or not all(isinstance(w, str) for w in words.values()):
            raise ValueError("kind_words is an object from kinds to words")
        given = {**cls().to_json(), **options}
        return cls(
            trim_lines=given["trim_lines"],
            kind_words=dict(words),
            need_first=given["need_first"],
            capped=given["failure_cap"] == "failures",
            self_calls=given["calls"] == "self",
            ahead_in_wait=given["ahead_in_wait"],
            kinds=tuple(kind for kind in KINDS if kind in kinds),
            retry_at_message=given["retry"] == "message",
            held_takes_job=given["held_takes_job"],
            flat_lines=given["flat_lines"],
            flat_sizes=given["flat_sizes"],
            row_sizes=given["row_sizes"],
            tolerance=float(tolerance),
            ellipsis=given["ellipsis"],
            **{name: given[name] for name in STRINGS},
            **{flag: given[name] == value for name, (flag, value) in FLAGS.items()},
        )

    def _said(self, name: str) -> str:
        """A flag's option as the protocol writes it (SPEC 10)."""
        flag, value = FLAGS[name]
        return value if getattr(self, flag) else CHOICES[name][0]

    def to_json(self) -> dict[str, Any]:
        """The profile's JSON form, every option spelled out (SPEC 10)."""
        return {
            "trim_lines": self.trim_lines,
            "kind_words": dict(self.kind_words),
            "need_first": self.need_first,
            "failure_cap": "failures" if self.capped else "none",
            "calls": "self" if self.self_calls else "driven",
            "ahead_in_wait": self.ahead_in_wait,
            "empty_chat": self.empty_chat,
            "kinds": list(self.kinds),
            "retry": "message" if self.retry_at_message else "tick",
            "held_takes_job": self.held_takes_job,
            "merge_order": self.merge_order,
            "resume": self.resume,
            "empty_reply": self.empty_reply,
            "not_shorter": self.not_shorter,
            "retried": self._said("retried"),
            "zoom_one": self._said("zoom_one"),
            "zoom_halves": self._said("zoom_halves"),
            "zoom_unbuilt": self._said("zoom_unbuilt"),
            "tolerance": self.tolerance,
            "cut": self._said("cut"),
            "ellipsis": self.ellipsis,
            "overlong": self._said("overlong"),
            "replies_out": self._said("replies_out"),
            "given_line": self.given_line,
            "trim_set": self.trim_set,
            "free_leaves": self._said("free_leaves"),
            "flat_lines": self.flat_lines,
            "ahead_limit": self.ahead_limit,
            "flat_sizes": self.flat_sizes,
            "batches": self.batches,
            "row_sizes": self.row_sizes,
        }


BOOLEANS = (
    "trim_lines",
    "need_first",
    "ahead_in_wait",
    "held_takes_job",
    "flat_lines",
    "flat_sizes",
    "row_sizes",
)
"""The options that are true or false."""

OPTIONS = tuple(Profile().to_json())
"""The options of SPEC 10, in its order."""
