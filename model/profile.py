"""Engine profiles: the documented deviations an engine may declare (SPEC 10).

A profile is a pure parameter like the constants: every rule an option
touches reads it, and `Profile()` is SPEC itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from model.constants import KINDS

CALLS = ("driven", "self")
"""Who starts compaction calls (SPEC 10, option `calls`)."""

FAILURE_CAPS = ("failures", "none")
"""Whether FAILURES failed calls build a node from its cut source (SPEC 10)."""

RETRIES = ("message", "tick")
"""When a failed node may start again (SPEC 4, 10, option `retry`)."""

EMPTY_REPLIES = ("ends", "fails")
"""What an empty reply does to a call (SPEC 5, 10, option `empty_reply`)."""

NOT_SHORTER = ("stops", "goes_on")
"""What a follow-up not shorter than the best does (SPEC 5, 10, option `not_shorter`)."""

RESUMES = ("settle", "self")
"""What ends a wait on a settled view (SPEC 4, 10, option `resume`)."""

MERGE_ORDERS = ("level", "ready")
"""How ready merges queue (SPEC 4, 10, option `merge_order`)."""

EMPTY_CHATS = ("tags", "blank_line")
"""How an empty list of lines renders (SPEC 3, 10, option `empty_chat`)."""

RETRIED = ("in_place", "first")
"""Where a node let go after a failure queues (SPEC 4, 10, option `retried`)."""

ZOOM_ONES = ("line", "headed")
"""What `zoom(id, 1)` shows (SPEC 3.5, 10, option `zoom_one`)."""

ZOOM_HALVES = ("tags", "bare")
"""How `zoom(id, n)` shows a node's two halves (SPEC 3.5, 10, option `zoom_halves`)."""

ZOOM_UNBUILT = ("shown", "refused")
"""Whether a zoom over an unbuilt half is taken (SPEC 3.5, 10, option `zoom_unbuilt`)."""

CUTS = ("character", "word")
"""Where the line chooser cuts its best reply (SPEC 5, 10, option `cut`)."""

OVERLONG = ("cut", "kept")
"""What the line chooser does with a best reply that does not fit (SPEC 5, 10)."""

REPLIES_OUT = ("ends", "asks")
"""What replies that run out before the tries end do (SPEC 5, 10, option `replies_out`)."""

GIVEN_LINES = ("final", "reply", "cut")
"""What an `end`'s given line over LINE does (SPEC 5, 10, option `given_line`)."""

TRIM_SETS = ("unicode", "javascript", "ascii")
"""The named sets of white space (SPEC 3.6, 10, option `trim_set`)."""

FREE_LEAVES = ("at_once", "queued")
"""When a leaf whose line fits NODE is built (SPEC 2, 4, 10, option `free_leaves`)."""

BATCHES = ("messages", "builds")
"""Which events run the chat view's batch (SPEC 3.3, 10, option `batches`)."""

AHEAD_LIMITS = ("bound", "none")
"""Whether AHEAD bounds the leaves that may start (SPEC 4, 10, option `ahead_limit`)."""

TOLERANCES = (1, 4)
"""The least and greatest `tolerance`, a number in hundredths (SPEC 5, 10)."""

ELLIPSIS_BYTES = 3
"""The most bytes an `ellipsis` may have: a cut to NODE (at least 4 bytes)
then keeps room for a character (SPEC 7, 10)."""


def _utf8_size(text: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return -1


@dataclass(frozen=True, slots=True)
class Profile:
    """SPEC 10. `kind_words` holds `(kind, word)` pairs, sorted by kind, for
    the kinds an engine writes with its own word; `kinds` the kinds it takes,
    in SPEC 1's order; `tolerance` a number from 1 to 4 in hundredths."""

    trim_lines: bool = False
    kind_words: tuple[tuple[str, str], ...] = ()
    need_first: bool = True
    failure_cap: str = "failures"
    calls: str = "driven"
    ahead_in_wait: bool = True
    empty_chat: str = "tags"
    kinds: tuple[str, ...] = KINDS
    retry: str = "message"
    held_takes_job: bool = False
    merge_order: str = "level"
    resume: str = "settle"
    empty_reply: str = "ends"
    not_shorter: str = "stops"
    retried: str = "in_place"
    zoom_one: str = "line"
    zoom_halves: str = "tags"
    zoom_unbuilt: str = "shown"
    tolerance: float = 1.0
    cut: str = "character"
    ellipsis: str = ""
    overlong: str = "cut"
    replies_out: str = "ends"
    given_line: str = "final"
    trim_set: str = "unicode"
    free_leaves: str = "at_once"
    flat_lines: bool = False
    ahead_limit: str = "bound"
    flat_sizes: bool = False
    batches: str = "messages"
    row_sizes: bool = False

    def __post_init__(self) -> None:
        for kind, word in self.kind_words:
            if kind not in KINDS:
                raise ValueError(f"kind_words maps {kind!r}, which is no kind ({', '.join(KINDS)})")
            if not word or ": " in word or any(c in word for c in "\r\n"):
                raise ValueError(
                    f"the word for {kind!r} must be one non-empty line without ': ', not {word!r}"
                )
        if list(self.kind_words) != sorted(dict(self.kind_words).items()):
            raise ValueError("kind_words must be (kind, word) pairs sorted by kind, once each")
        for name, allowed in TYPES.items():
            if isinstance(allowed, tuple) and getattr(self, name) not in allowed:
                raise ValueError(f"{name} is one of {allowed}, not {getattr(self, name)!r}")
        if not self.kinds or list(self.kinds) != [k for k in KINDS if k in self.kinds]:
            raise ValueError(
                f"kinds are some of {', '.join(KINDS)}, at least one, each once, in that order"
            )
        least, most = TOLERANCES
        in_hundredths = abs(self.hundredths - self.tolerance * 100) <= 1e-6
        if not least <= self.tolerance <= most or not in_hundredths:
            raise ValueError(
                f"tolerance is a number from {least} to {most} in hundredths, "
                f"not {self.tolerance!r}"
            )
        if not 0 <= _utf8_size(self.ellipsis) <= ELLIPSIS_BYTES or any(
            c in self.ellipsis for c in "\r\n"
        ):
            raise ValueError(
                f"the ellipsis is one line of at most {ELLIPSIS_BYTES} bytes, not {self.ellipsis!r}"
            )

    @property
    def hundredths(self) -> int:
        """`tolerance` in hundredths, the integer its limit is computed with (SPEC 5, 10)."""
        return round(self.tolerance * 100)

    def line_limit(self, node_bytes: int) -> int:
        """LINE, the most bytes a line fits in: NODE, or ⌊NODE × tolerance⌋,
        computed exactly (SPEC 5, 10)."""
        return node_bytes * self.hundredths // 100

    def word(self, kind: str) -> str:
        """The word written before `: ` in a message's line (SPEC 1, 10)."""
        return dict(self.kind_words).get(kind, kind)

    def ahead_applies(self, waiting: bool) -> bool:
        """Whether AHEAD bounds the leaves that may start: not under
        `ahead_limit: none`, nor while a turn waits with `ahead_in_wait`
        off (SPEC 4, 10)."""
        return self.ahead_limit == "bound" and not (waiting and not self.ahead_in_wait)

    @property
    def capped(self) -> bool:
        """Whether the FAILURES-th failure builds a node from its cut source (SPEC 4, 10)."""
        return self.failure_cap == "failures"

    @property
    def retry_at_message(self) -> bool:
        """Whether a message lets failed nodes start again, as RETRY does (SPEC 4, 10)."""
        return self.retry == "message"

    @property
    def self_resume(self) -> bool:
        """Whether a waiting turn goes on by itself once the view is settled (SPEC 4, 10)."""
        return self.resume == "self"

    @property
    def self_calls(self) -> bool:
        """Whether the engine starts its own calls (SPEC 10, `calls: self`)."""
        return self.calls == "self"


def deviations(profile: Profile) -> list[str]:
    """The options of `profile` that differ from SPEC, in words (SPEC 10)."""
    out: list[str] = []
    if profile.trim_lines:
        out.append("trim_lines")
    if profile.kind_words:
        words = ", ".join(f"{kind} -> {word}" for kind, word in profile.kind_words)
        out.append(f"kind_words ({words})")
    if not profile.need_first:
        out.append("need_first off")
    if not profile.capped:
        out.append("failure_cap none")
    if profile.self_calls:
        out.append("calls self")
    if not profile.ahead_in_wait:
        out.append("ahead_in_wait off")
    if profile.empty_chat != "tags":
        out.append(f"empty_chat {profile.empty_chat}")
    if profile.kinds != KINDS:
        out.append(f"kinds ({', '.join(profile.kinds)})")
    if not profile.retry_at_message:
        out.append(f"retry {profile.retry}")
    if profile.held_takes_job:
        out.append("held_takes_job")
    if profile.merge_order != "level":
        out.append(f"merge_order {profile.merge_order}")
    if profile.self_resume:
        out.append("resume self")
    if profile.empty_reply != "ends":
        out.append(f"empty_reply {profile.empty_reply}")
    if profile.not_shorter != "stops":
        out.append(f"not_shorter {profile.not_shorter}")
    for name in ("retried", "zoom_one", "zoom_halves", "zoom_unbuilt"):
        if getattr(profile, name) != TYPES[name][0]:
            out.append(f"{name} {getattr(profile, name)}")
    if profile.tolerance != 1:
        out.append(f"tolerance {profile.tolerance:g}")
    if profile.cut != "character":
        out.append(f"cut {profile.cut}")
    if profile.ellipsis:
        out.append(f'ellipsis "{profile.ellipsis}"')
    for name in ("overlong", "replies_out", "given_line", "trim_set", "free_leaves"):
        if getattr(profile, name) != TYPES[name][0]:
            out.append(f"{name} {getattr(profile, name)}")
    for name in ("flat_lines", "ahead_limit", "flat_sizes", "batches", "row_sizes"):
        value = getattr(profile, name)
        if TYPES[name] is bool and value:
            out.append(name)
        elif TYPES[name] is not bool and value != TYPES[name][0]:
            out.append(f"{name} {value}")
    return out


def options(profile: Profile) -> dict[str, Any]:
    """The profile as the protocol writes it, every option spelled out (SPEC 10)."""
    return {
        "trim_lines": profile.trim_lines,
        "kind_words": dict(profile.kind_words),
        "need_first": profile.need_first,
        "failure_cap": profile.failure_cap,
        "calls": profile.calls,
        "ahead_in_wait": profile.ahead_in_wait,
        "empty_chat": profile.empty_chat,
        "kinds": list(profile.kinds),
        "retry": profile.retry,
        "held_takes_job": profile.held_takes_job,
        "merge_order": profile.merge_order,
        "resume": profile.resume,
        "empty_reply": profile.empty_reply,
        "not_shorter": profile.not_shorter,
        "retried": profile.retried,
        "zoom_one": profile.zoom_one,
        "zoom_halves": profile.zoom_halves,
        "zoom_unbuilt": profile.zoom_unbuilt,
        "tolerance": profile.tolerance,
        "cut": profile.cut,
        "ellipsis": profile.ellipsis,
        "overlong": profile.overlong,
        "replies_out": profile.replies_out,
        "given_line": profile.given_line,
        "trim_set": profile.trim_set,
        "free_leaves": profile.free_leaves,
        "flat_lines": profile.flat_lines,
        "ahead_limit": profile.ahead_limit,
        "flat_sizes": profile.flat_sizes,
        "batches": profile.batches,
        "row_sizes": profile.row_sizes,
    }


TYPES: dict[str, Any] = {
    "trim_lines": bool,
    "kind_words": dict,
    "need_first": bool,
    "failure_cap": FAILURE_CAPS,
    "calls": CALLS,
    "ahead_in_wait": bool,
    "empty_chat": EMPTY_CHATS,
    "kinds": list,
    "retry": RETRIES,
    "held_takes_job": bool,
    "merge_order": MERGE_ORDERS,
    "resume": RESUMES,
    "empty_reply": EMPTY_REPLIES,
    "not_shorter": NOT_SHORTER,
    "retried": RETRIED,
    "zoom_one": ZOOM_ONES,
    "zoom_halves": ZOOM_HALVES,
    "zoom_unbuilt": ZOOM_UNBUILT,
    "tolerance": float,
    "cut": CUTS,
    "ellipsis": str,
    "overlong": OVERLONG,
    "replies_out": REPLIES_OUT,
    "given_line": GIVEN_LINES,
    "trim_set": TRIM_SETS,
    "free_leaves": FREE_LEAVES,
    "flat_lines": bool,
    "ahead_limit": AHEAD_LIMITS,
    "flat_sizes": bool,
    "batches": BATCHES,
    "row_sizes": bool,
}
"""Each option of SPEC 10 as the protocol writes it: a JSON type (a number
for `float`, an integer taken too), or the strings it may be."""


def from_options(given: Any) -> Profile:
    """The profile a JSON object of options declares; options left out keep
    SPEC's rule. ValueError names an unknown option or a bad value."""
    if not isinstance(given, dict):
        raise ValueError(f"a profile is a JSON object of options, not {given!r}")
    for name, value in given.items():
        kind = TYPES.get(name)
        if kind is None:
            raise ValueError(f"unknown profile option {name!r}; options are {', '.join(TYPES)}")
        if isinstance(kind, tuple):
            if value not in kind:
                raise ValueError(f"{name} is {' or '.join(map(repr, kind))}, not {value!r}")
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name} must be a JSON number, not {value!r}")
        elif not isinstance(value, kind):
            raise ValueError(f"{name} must be a JSON {kind.__name__}, not {value!r}")
    words = given.get("kind_words", {})
    if not all(isinstance(word, str) for word in words.values()):
        raise ValueError("kind_words maps kinds to strings")
    kinds = given.get("kinds", list(KINDS))
    if not all(isinstance(kind, str) and kind in KINDS for kind in kinds):
        raise ValueError(f"kinds lists some of {', '.join(KINDS)}, not {kinds!r}")
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds names a kind twice: {kinds!r}")
    return Profile(
        **{
            **given,
            "kind_words": tuple(sorted(words.items())),
            "kinds": tuple(kind for kind in KINDS if kind in kinds),
            "tolerance": float(given.get("tolerance", 1)),
        }
    )
