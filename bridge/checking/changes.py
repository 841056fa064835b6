"""The declared differences `diagnose` tries (bridge/runs/diagnose.py, issues
21 and 34): a change of one profile option (SPEC 10) or one capability taken
away (bridge/formats/capabilities.py), which of them to try at a divergence
first, and which cannot change a scenario's replay at all.

The options are read from their one definition, model/profile.py's
`TYPES`: a true/false option is tried flipped, an option that lists its
strings at each other string, so an option SPEC 10 gains is tried without
a word here. An option of another type has too many values to try each: it
is tried only at a value guessed from the divergence (`GUESSES`): the
words of `kind_words` read from the texts (a line the model writes
`unii: ...` and the engine `talk: ...`), a kind `kinds` leaves out from a
message the engine refuses as `kind`, a `tolerance` a longer line fits in,
an `ellipsis` the engine's line ends in. An option with neither is not
tried (`untried` names it). The capabilities are read from CAPABILITIES the same
way: the one owning the diverging field; one whose events are sent in
another form without it, at such an event; one whose events are not sent
without it only where the engine answers such an event as unsupported.

At a divergence the changes come in tiers (`tiers`), each tier tried whole
before the next, its best change taken: the capability owning the field
when the engine left the field out; then the guessed values and the
options the diverging event or field concerns (`CONCERNS`,
`FIELD_CONCERNS`: only an order, an option missing there is still tried),
alone, then the guesses together, each guess or group with one of those
options (`together`: the line chooser's limits show in one line at once),
and pairs of those options, all in one tier; the capability owning the
field when the engine wrote it otherwise (an option that explains it keeps
the field compared, so it comes first), the other options, the
capabilities that change what is sent, then pairs of an option concerned
with any other. A divergence costs
at most one replay per value of each option (O(values)), plus one per
pair (O(concerned x values)), plus, where values are guessed (a line that
differs: up to 17 tolerances, 3 ellipses), one per group of guesses and
per guess or group with a concerned option; never every pair of options."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from itertools import combinations, product
from typing import Any

from bridge.checking.compare import MISSING, Divergence
from bridge.formats.capabilities import (
    ALL,
    BY_NAME,
    CAPABILITIES,
    GIVEN,
    WITHHELD,
    Capability,
    lacking,
    only_tests,
)
from bridge.formats.profile import SPEC, to_json
from bridge.wire.stream import changes as changes_sent
from model.constants import KINDS
from model.profile import ELLIPSIS_BYTES, TOLERANCES, TYPES, Profile, options
from scenarios.format import Scenario

LACKS = "lacks"
"""The option of a change that takes a capability away (its value names it)."""


@dataclass(frozen=True, order=True)
class Change:
    """One declared difference tried: a profile option at a value (SPEC 10,
    held as model/profile.py's `Profile` holds it: `kind_words` as sorted
    pairs, `kinds` as a tuple), or a capability the engine lacks (option
    `lacks`)."""

    option: str
    value: Any

    @property
    def shown(self) -> Any:
        """The value as the protocol writes it (a JSON value)."""
        if self.option == LACKS:
            return self.value
        return options(replace(SPEC, **{self.option: self.value}))[self.option]

    def said(self) -> str:
        return f"{self.option}: {json.dumps(self.shown, ensure_ascii=False)}"

    @property
    def key(self) -> tuple[str, Any]:
        """What a proposal takes one value of: a profile option, or one capability."""
        return (self.option, self.value if self.option == LACKS else None)


@dataclass(frozen=True)
class Trial:
    """What the engine is checked under: a profile and the capabilities it holds."""

    profile: Profile
    held: frozenset[str] = ALL

    @property
    def lacks(self) -> tuple[Capability, ...]:
        return lacking(self.held)


def proposal_of(trial: Trial) -> dict[str, Any]:
    """A trial as an engine declares it in its ready answer, as `diagnose`
    prints its proposal and `compare --proposal` reads it: the options that
    differ from SPEC's (SPEC 10) and the capabilities held (bridge/PROTOCOL.md)."""
    spec = to_json(SPEC)
    profile = {k: v for k, v in to_json(trial.profile).items() if spec[k] != v}
    return {"profile": profile, "capabilities": sorted(trial.held)}


def singles(trial: Trial) -> list[Change]:
    """Every change of one option of `trial`'s profile its type enumerates:
    a boolean flipped, each other string of an option that lists them."""
    out: list[Change] = []
    for name, kind in TYPES.items():
        now = getattr(trial.profile, name)
        if kind is bool:
            out.append(Change(name, not now))
        elif isinstance(kind, tuple):
            out += [Change(name, value) for value in kind if value != now]
    return out


def taken_away(trial: Trial) -> list[Change]:
    """Each capability `trial` holds taken away (those that take others with them last)."""
    held = sorted((c for c in CAPABILITIES if c.name in trial.held), key=lambda c: len(c.implies))
    return [Change(LACKS, c.name) for c in held]


def changes(base: Trial) -> list[Change]:
    """Every single change tried without a guess: `singles`, then `taken_away`."""
    return singles(base) + taken_away(base)


def applied(base: Trial, made: Iterable[Change]) -> Trial | None:
    """`base` with the changes made; None when they make no profile."""
    made = tuple(made)
    told = {c.option: c.value for c in made if c.option != LACKS}
    try:
        profile = replace(base.profile, **told)
    except ValueError:
        return None
    return Trial(profile, base.held - {c.value for c in made if c.option == LACKS})


def between(start: Trial, end: Trial) -> tuple[Change, ...]:
    """The changes that take `start` to `end`: each option that differs at
    `end`'s value, each capability `end` lacks that `start` holds. (A
    capability `end` holds that `start` lacks is no change: see `regained`.)"""
    made = [
        Change(name, getattr(end.profile, name))
        for name in TYPES
        if getattr(start.profile, name) != getattr(end.profile, name)
    ]
    return tuple(made + [Change(LACKS, name) for name in sorted(start.held - end.held)])


def regained(start: Trial, end: Trial) -> bool:
    """Whether `end` holds a capability `start` lacks."""
    return bool(end.held - start.held)


def untried() -> list[str]:
    """The options of SPEC 10 diagnose neither enumerates nor guesses."""
    return [n for n, k in TYPES.items() if not (k is bool or isinstance(k, tuple) or n in GUESSES)]


def owning(change: Change, found: Divergence) -> bool:
    """Whether a change takes away the capability owning the diverging field
    (whether the engine left it out or wrote it otherwise), or one whose
    events are not sent without it, at such an event the engine said it
    does not support (field `unsupported`)."""
    if change.option != LACKS:
        return False
    capability = BY_NAME[change.value]
    if found.field == "unsupported":
        return capability.handling == WITHHELD and event_of(found) in capability.events
    return found.field in capability.fields


def at_its_events(change: Change, found: Divergence) -> bool:
    """Whether a change takes away a capability whose events are sent in
    another form without it (an `end`'s replies as the model's line), at
    one of its events. (One whose events are not sent at all is tried only
    on the engine's word, `owning`: withholding events explains any
    divergence at them, a bug's too.)"""
    if change.option != LACKS or BY_NAME[change.value].handling != GIVEN:
        return False
    return event_of(found) in BY_NAME[change.value].events


def event_of(found: Divergence) -> str | None:
    """The kind of the event a divergence is at (None at the detail request)."""
    return (found.event or {}).get("event")


def withheld_for(trial: Trial, found: Divergence) -> bool:
    """Whether a capability `trial` holds would withhold the event the engine
    said it does not support."""
    return any(owning(c, found) for c in taken_away(trial))


CONCERNS = {
    "end": (
        "empty_reply",
        "not_shorter",
        "trim_lines",
        "overlong",
        "replies_out",
        "given_line",
        "trim_set",
        "flat_lines",
        "batches",
    ),
    "fail": ("retry", "failure_cap", "held_takes_job"),
    "message": (
        "retry",
        "failure_cap",
        "held_takes_job",
        "trim_lines",
        "kinds",
        "kind_words",
        "free_leaves",
    ),
    "wait": ("resume", "ahead_in_wait", "need_first"),
    "settle": ("resume",),
    "start": (
        "calls",
        "need_first",
        "ahead_in_wait",
        "held_takes_job",
        "retried",
        "free_leaves",
        "ahead_limit",
    ),
    "zoom": ("zoom_one", "zoom_halves", "zoom_unbuilt"),
}
"""The profile options tried first at a divergence at each kind of event
(SPEC 10 says where each applies); the others follow, in a later tier."""
FIELD_CONCERNS = {
    "render_crc": ("empty_chat", "kind_words", "trim_lines", "flat_lines"),
    "render": ("empty_chat", "kind_words", "trim_lines", "flat_lines"),
    "contexts_crc": ("empty_chat", "kind_words", "trim_lines", "flat_lines"),
    "contexts": ("empty_chat", "kind_words", "trim_lines", "flat_lines"),
    "line": (
        "trim_lines",
        "empty_reply",
        "not_shorter",
        "kind_words",
        "cut",
        "overlong",
        "trim_set",
        "flat_lines",
    ),
    "queue": (
        "merge_order",
        "held_takes_job",
        "retry",
        "ahead_in_wait",
        "need_first",
        "retried",
        "free_leaves",
        "ahead_limit",
    ),
    "queue_waiting": (
        "merge_order",
        "held_takes_job",
        "ahead_in_wait",
        "need_first",
        "free_leaves",
        "ahead_limit",
    ),
    "started": ("calls",),
    "size": ("flat_sizes", "row_sizes"),
    "merges": ("batches",),
    "cmerges": ("batches",),
    "shrinking": ("batches",),
}
"""The profile options tried first when a field differs, whatever the event."""


def concerned(found: Divergence) -> set[str]:
    """The options the diverging event or field concerns."""
    event = (found.event or {}).get("event", "")
    return set(CONCERNS.get(event, ())) | set(FIELD_CONCERNS.get(found.field, ()))


TEXT_FIELDS = ("render", "render_timed_out", "contexts", "zoom", "line")
"""Answer fields that hold texts: the words written where kinds go show there."""
TEXT_CRCS = ("render_crc", "render_timed_out_crc", "contexts_crc")
"""Answer fields that stand for texts: the texts must be asked for (a detail request)."""

Texts = tuple[list[str], list[str]]
"""The texts the model and the engine wrote at a divergence, in pairs."""


def wants_texts(found: Divergence) -> bool:
    """Whether the words written where kinds go may explain a divergence:
    a text differs, or a message's size does (a word of another length
    shows there first; one of the same length only in the texts)."""
    return found.field in TEXT_FIELDS or found.field in TEXT_CRCS or found.field == "size"


def texts_of(value: Any) -> list[str]:
    """The texts in an answer field's value (a text, a context list, a detail)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for name in TEXT_FIELDS for t in texts_of(value.get(name))]
    if isinstance(value, list):
        return [t for item in value for t in texts_of(item)]
    return []


LINE = re.compile(r"(\d+\+\d+\|)?(.*)", re.S)
"""A rendered line: `first+count|` (SPEC 3) before its text, or a text alone."""


def written(profile: Profile, model: str, engine: str) -> tuple[str, str] | None:
    """The kind and the engine's word, when the model wrote a line as the
    kind's word under `profile`, `: `, then a text, and the engine wrote
    the same text after another word (SPEC 1, 10: `kind_words`)."""
    a, b = LINE.fullmatch(model), LINE.fullmatch(engine)
    if a is None or b is None or a.group(1) != b.group(1):
        return None
    word, sep, rest = b.group(2).partition(": ")
    if not sep or not word or "\r" in word:
        return None
    for kind in KINDS:
        said = profile.word(kind)
        if a.group(2) == f"{said}: {rest}" and word != said:
            return kind, word
    return None


def words_written(profile: Profile, texts: Texts) -> dict[str, str]:
    """The word the engine writes for each kind where it writes another than
    `profile` says, read from pairs of texts line by line (the lines that
    differ between the two, where their counts agree); each kind takes the
    word most lines show."""
    seen: dict[str, Counter[str]] = {}
    for model, engine in zip(*texts, strict=False):
        ours, theirs = model.split("\n"), engine.split("\n")
        matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace" or i2 - i1 != j2 - j1:
                continue
            for a, b in zip(ours[i1:i2], theirs[j1:j2], strict=True):
                pair = written(profile, a, b)
                if pair is not None:
                    seen.setdefault(pair[0], Counter())[pair[1]] += 1
    return {kind: words.most_common(1)[0][0] for kind, words in sorted(seen.items())}


def guess_kind_words(
    trial: Trial, found: Divergence, texts: Texts | None, node: int | None
) -> list[Change]:
    """`kind_words` with the words the engine writes (`words_written`)."""
    if texts is None:
        return []
    words = dict(trial.profile.kind_words) | words_written(trial.profile, texts)
    value = tuple(sorted((k, w) for k, w in words.items() if w != k))
    return [] if value == trial.profile.kind_words else [Change("kind_words", value)]


def guess_kinds(
    trial: Trial, found: Divergence, texts: Texts | None, node: int | None
) -> list[Change]:
    """`kinds` without a kind the engine refuses a message of as `kind`, or
    with one the model refused so and the engine took (SPEC 10)."""
    event = found.event or {}
    kind = event.get("kind")
    if found.field != "refused" or event.get("event") != "message" or kind not in KINDS:
        return []
    taken = set(trial.profile.kinds)
    if found.found == "kind" and found.expected is MISSING and kind in taken:
        taken.discard(kind)
    elif found.expected == "kind" and found.found is MISSING:
        taken.add(kind)
    else:
        return []
    value = tuple(k for k in KINDS if k in taken)
    return [Change("kinds", value)] if value else []


TOLERANCES_KNOWN = (125, 150, 200)
"""Tolerances in hundredths engines are known to round to (elephant-memory:
1.25), tried beside the least that fits a longer line (`guess_tolerance`)."""


def utf8_size(text: str) -> int:
    """A text's bytes in UTF-8 (an engine's lone surrogate counted as three)."""
    return len(text.encode("utf-8", "surrogatepass"))


def built(found: Divergence) -> tuple[str, str] | None:
    """The lines the model and the engine built at an `end`, when they differ."""
    a, b = found.expected, found.found
    if found.field != "line" or not isinstance(a, str) or not isinstance(b, str) or a == b:
        return None
    return a, b


def taken_line(found: Divergence) -> int | None:
    """The size of a given line the model refused as `line_fits` and the
    engine installed (an engine with a wider LINE), else None."""
    event = found.event or {}
    if found.field != "refused" or found.expected != "line_fits" or found.found is not MISSING:
        return None
    if event.get("event") != "end":
        return None
    if isinstance(event.get("line"), str):
        return utf8_size(event["line"])
    return event["size"] if type(event.get("size")) is int else None


def guess_tolerance(
    trial: Trial, found: Divergence, texts: Texts | None, node: int | None
) -> list[Change]:
    """`tolerance` (SPEC 5, 10) when the engine built a longer line than
    the model, or installed a given line the model refused as `line_fits`
    (`taken_line`): under any tolerance below it, when it is longer than NODE, at the least
    hundredths its size fits in and at each known one above
    (`TOLERANCES_KNOWN`); under a tolerance guessed already and `cut:
    word`, at the least hundredths of each LINE from its size to WORD_BYTES
    more (a word cut ends a line up to a word short of LINE, so the first
    guess may fall short)."""
    lines = built(found)
    given = taken_line(found)
    if (lines is None and given is None) or node is None:
        return []
    length = utf8_size(lines[1]) if lines is not None else given or 0
    now = trial.profile.hundredths
    if (lines is not None and length <= utf8_size(lines[0])) or length <= node:
        return []
    top = TOLERANCES[1] * 100
    least = -(-length * 100 // node)
    tried = {least, *(h for h in TOLERANCES_KNOWN if h > least)}
    if now != 100 and trial.profile.cut == "word":
        tried |= {-(-line * 100 // node) for line in range(length, length + WORD_BYTES + 1)}
    return [Change("tolerance", h / 100) for h in sorted(tried) if now < h <= top]


WORD_BYTES = 16
"""The most bytes a word cut is taken to end a line short of LINE by."""


REFINED = ("tolerance", "kind_words")
"""The guessed options tried again once changed: the least tolerance a line
fits in may be too small (a word cut ends a line short of LINE), and a
longer line later shows more; `guess_tolerance` only ever offers more. A
kind's word shows first where a message of that kind does (a render
later), after the words of other kinds were guessed; `guess_kind_words`
only ever adds words."""


def guess_ellipsis(
    trial: Trial, found: Divergence, texts: Texts | None, node: int | None
) -> list[Change]:
    """`ellipsis` (SPEC 5, 10) as the last one, two or three characters of
    the line the engine built where the model built another (of at most
    ELLIPSIS_BYTES bytes, on one line, not what the model's line ends in)."""
    lines = built(found)
    if lines is None:
        return []
    ours, theirs = lines
    out = []
    for k in range(1, ELLIPSIS_BYTES + 1):
        tail = theirs[-k:]
        if len(tail) < k or ours.endswith(tail) or tail == trial.profile.ellipsis:
            continue
        if 0 < utf8_size(tail) <= ELLIPSIS_BYTES and not any(c in tail for c in "\r\n"):
            out.append(Change("ellipsis", tail))
    return out


Guess = Callable[[Trial, Divergence, "Texts | None", "int | None"], list[Change]]
GUESSES: dict[str, Guess] = {
    "kind_words": guess_kind_words,
    "kinds": guess_kinds,
    "tolerance": guess_tolerance,
    "ellipsis": guess_ellipsis,
}
"""The options of a type with too many values to try each (a map, a list,
a number, a string), each with the values a divergence suggests."""


def guessed(
    trial: Trial, found: Divergence, texts: Texts | None, node: int | None = None
) -> list[Change]:
    """Every guessed change a divergence suggests (`GUESSES`); `node` is the
    scenario's NODE, which a line's length is judged by."""
    return [c for guess in GUESSES.values() for c in guess(trial, found, texts, node)]


def tiers(
    trial: Trial,
    taken: set[tuple[str, Any]],
    found: Divergence,
    guesses: list[Change],
    known: bool = False,
) -> list[list[tuple[Change, ...]]]:
    """The changes to try at a divergence, in turn (see the module's
    docstring): none of an option or capability already changed. A `known`
    symptom (one other scenarios showed that no change explained) is tried
    only with the changes its field or event concerns."""
    left = [c for c in changes(trial) if c.key not in taken]
    near = concerned(found)
    profile = [c for c in left if c.option != LACKS]
    first = [(c,) for c in profile if c.option in near]
    rest = [(c,) for c in profile if c.option not in near]
    pairs = [
        (a, b)
        for (a,) in first
        for b in profile
        if b.option != a.option and (b.option not in near or a < b)
    ]
    close = [pair for pair in pairs if pair[1].option in near]
    owners = [(c,) for c in left if owning(c, found)]
    absent = found.found is MISSING or found.field == "unsupported"
    fresh = [c for c in guesses if c.key not in taken or c.option in REFINED]
    near_tiers = [
        owners if absent else [],
        [*((c,) for c in fresh), *first, *together(fresh, [c for (c,) in first]), *close],
        [] if absent else owners,
    ]
    if known:
        return near_tiers
    far = [pair for pair in pairs if pair[1].option not in near]
    return [*near_tiers, rest, [(c,) for c in left if at_its_events(c, found)], far]


def together(guesses: list[Change], near: list[Change]) -> list[tuple[Change, ...]]:
    """The guessed values of two or more options at once, and each guess
    or such group with one change of an option the divergence concerns
    (`near`): the line chooser's limits show in one line together (cut
    longer under `tolerance`, at a word under `cut`, then an `ellipsis`),
    and no one of them alone moves the divergence."""
    values: dict[str, list[Change]] = {}
    for change in guesses:
        values.setdefault(change.option, []).append(change)
    groups = [
        group
        for k in range(2, len(values) + 1)
        for options_ in combinations(values.values(), k)
        for group in product(*options_)
    ]
    with_near = [
        (*group, change)
        for group in [*((c,) for c in guesses), *groups]
        for change in near
        if change.option not in {c.option for c in group}
    ]
    return [*groups, *with_near]


def symptom(found: Divergence) -> tuple[Any, ...]:
    """How a divergence shows, as a bug shows alike wherever it shows: the
    field, and how its values differ: for lists of nodes, the levels of the
    nodes only the engine has (`+`) and of those only the model has (`-`),
    or `order` when they hold the same; for numbers, which side is larger;
    for a refusal, both rules; for anything else the field alone. Not the
    event: a bug in the queue shows at whichever event moves the queue."""
    a, b = found.expected, found.found
    if found.field == "refused":
        return (found.field, None if a is MISSING else a, None if b is MISSING else b)
    if nodes(a) and nodes(b):
        ours, theirs = {tuple(n) for n in a}, {tuple(n) for n in b}
        more = sorted({("+", n[0]) for n in theirs - ours} | {("-", n[0]) for n in ours - theirs})
        return (found.field, *more) if more else (found.field, "order")
    if type(a) is int and type(b) is int:
        return (found.field, "more" if b > a else "less")
    return (found.field,)


def mirrored(shown: tuple[Any, ...]) -> tuple[Any, ...]:
    """A symptom the other way round (`symptom`): the nodes only the engine
    has and those only the model has swapped, `more` and `less` swapped; a
    symptom with no direction is its own mirror."""
    turned = {"+": "-", "-": "+", "more": "less", "less": "more"}
    return tuple(
        (turned[part[0]], *part[1:])
        if isinstance(part, tuple) and part and part[0] in turned
        else turned.get(part, part)
        if isinstance(part, str) and k
        else part
        for k, part in enumerate(shown)
    )


def nodes(value: Any) -> bool:
    """Whether a value is a list of nodes (`[level, index]` pairs)."""
    return isinstance(value, list) and all(
        isinstance(n, list) and len(n) == 2 and all(type(x) is int for x in n) for n in value
    )


CHOOSER = ("empty_reply", "not_shorter", "cut", "ellipsis", "replies_out")
"""The profile options only the line chooser reads: it chooses from an
`end` event's replies, and from nothing else (SPEC 5, 10; `tolerance`,
`overlong` and `trim_set` also judge or strip a given line)."""
FAILURE = ("retry", "failure_cap", "held_takes_job", "retried")
"""The profile options only a failed call makes matter: they say when a
held node starts again and where it then queues, what its last failure
builds, and whether it takes a JOBS slot (SPEC 4, 10); with no failure no
node is held."""
ZOOM = ("zoom_one", "zoom_halves", "zoom_unbuilt")
"""The profile options only a `zoom` event reads (SPEC 3.5, 10)."""
GIVEN_LINE = ("given_line",)
"""The profile options only an `end` with a given line reads (SPEC 5, 10)."""


def can_fail(scenario: Scenario, profile: Profile) -> bool:
    """Whether a call can fail in the scenario: a `fail` event, replies
    (the chooser may fail the call), or a line `trim_lines` may empty."""
    return any(
        event["event"] == "fail"
        or "replies" in event
        or (profile.trim_lines and event["event"] == "end")
        for event in scenario.events
    )


def inert(scenario: Scenario, extra: tuple[Change, ...] | None, profile: Profile = SPEC) -> bool:
    """Whether the changes `extra` (to reach `profile`) cannot change a
    replay of the scenario: capabilities taken away only leave fields
    uncompared, and no event it has is withheld or sent otherwise; a
    chooser's option changed, and it has no replies; `given_line`, and it
    has no `end`; an option about
    failed calls, and no call can fail; a zoom option, and it has no zoom.
    None: it must be replayed anyway."""
    if extra is None:
        return False
    options_changed = {c.option for c in extra} - {LACKS}
    if options_changed - set(CHOOSER) - set(FAILURE) - set(ZOOM) - set(GIVEN_LINE):
        return False
    # Any end: one with replies is sent as a given line to an engine without `replies`.
    if options_changed & set(GIVEN_LINE) and any(e["event"] == "end" for e in scenario.events):
        return False
    if options_changed & set(CHOOSER) and any("replies" in e for e in scenario.events):
        return False
    if options_changed & set(ZOOM) and any(e["event"] == "zoom" for e in scenario.events):
        return False
    if options_changed & set(FAILURE) and can_fail(scenario, profile):
        return False
    lacks = lacking(ALL - {c.value for c in extra if c.option == LACKS})
    return not changes_sent(scenario, lacks) and only_tests(lacks, scenario.notes) is None


def stand_in(scenario: Scenario, profile: Profile, kept: list[Profile]) -> Profile:
    """`profile`, or one of `kept` that answers every event of the scenario
    as it does: it differs from `profile` only in options `inert` says the
    scenario cannot make matter (a replay under it reads that profile's
    transcript instead of stepping the model)."""
    if profile in kept:
        return profile
    wanted = Trial(profile)
    for other in kept:
        if inert(scenario, between(wanted, Trial(other)), other):
            return other
    return profile
