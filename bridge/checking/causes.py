"""Causes: the failures of a run grouped by what makes them fail, so that a
red run reads "88 FAIL from 2 causes", each cause with one small scenario
that shows it.

A divergence's `Signature` says how it fails: the kind of the event where
it first shows (bridge/checking/shrink.py `KINDS`: an end given by its
replies is a kind of its own; `detail` for the final detail request), the
part of SPEC its first differing field belongs to (shrink.py `PARTS`: the
views and their batches, the queue, the timed-out render; any other field
is a part of its own), for a refusal the rule of SPEC 4.1 the model names
(`allowed` when the engine refuses an event the model takes), and what its
shrunk scenario keeps: the kinds of events left in it. The first three are
read from the first divergence, free (the `provisional` signature); the
last needs a shrink. Two scenarios whose first differing fields are of one
part (a batch's size in one, its merges in another) can be one cause, since
shrinking keeps the part and not the field; two whose first divergences
look alike but need other kinds of events to show are two.

`group` makes the causes of a run's failures at a bounded cost: within each
provisional signature, the scenario with the fewest events up to its
divergence is the representative and is shrunk (within a budget counted in
replays); every other one is replayed once, reduced to the kinds of events
the shrunk representative keeps (`reduced`), and is of that cause if it
still diverges with the same provisional signature. Of those that do not,
the smallest whose shrink could name another cause (`could_differ`) is
shrunk in turn: if it keeps other kinds of events, it is another cause,
and the rest are tried reduced to those; at most REPRESENTATIVES shrinks
per provisional signature.

Two shrunk scenarios are one cause (`alike`) when one keeps every kind the
other keeps (`nested`: a shrink stopped by its budget, or one that found
another way to the same mistake, a call failed by its replies instead of
by a `fail`, keeps more kinds, not other ones), or when either, reduced to
the kinds the other keeps, still diverges so; the one keeping fewer kinds
names it. A reduction can hide a cause it keeps (removing the calls that
built the parents a batch merges into hides a batch's mistake that
messages alone show once their texts are small), so what is left is of
the one cause when every shrink stood for it, and else a cause that is not
shrunk, named by the provisional signature alone: those scenarios were
told apart from neither. Two mistakes told apart only by kinds of events
that one needs beside the other's are one cause here: fixing it shows the
other.

One bug shows in several provisional signatures: an AHEAD counted wrong
makes the queue differ at a message, at a start, after a fail at a fail,
and a start taken that SPEC 4.1 refuses. So `group` is given a whole
area's members (`Signature.area`: the section of SPEC whose rule the first
differing field shows, a refusal of a call's event counted in SPEC 4, the
queue's), groups each provisional signature as above, then makes one
(`joined`) the shrunk causes of the area whose kept kinds are `nested`,
whatever kind of event and part each first diverges at: the one keeping
fewest kinds names it. Two bugs of one area that need other kinds of
events (a zoom's beside a message's) stay two; two that need the same
kinds are one here, as two of one provisional signature are.

`corpus` first tries the rule slips of bridge/checking/slips.py: the
FAILs one slip explains are one cause, whatever their signatures, and only
those no slip explains are grouped here (bridge/runs/triage.py), at first
one cause per area (before any shrink), then as `group` splits them.

A cause's id (`Signature.id`) is one word that names it in a list, the same
from run to run and from engine to engine: a slip's cause has the slip's
id (`slip:queue.fail.minus1.0`, `Signature.slip`); any other `PART@KIND:KEPT`, e.g.
`views@message:message` (the views differ at a message; messages alone show
it), `refused.jobs_bound@start:message+start`, `line@replies:message+replies+start`;
without `:KEPT` for a cause that was not shrunk. A list of causes to pass
over (`fuzz --known-causes FILE`) holds one id a line (`read_known`,
`write_known`): a slip's passes over what that slip explains, any other
over what it did before and, once shrunk, over a divergence of its area
that the kinds it keeps, alone, still show in that area (`which`).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from bridge.checking.compare import MISSING, Divergence
from bridge.checking.shown import safe
from bridge.checking.shrink import (
    KINDS,
    PART_OF,
    PARTS,
    Progress,
    diverges_as,
    kind_of,
    plain_texts,
    simplify,
    until_fault,
)
from bridge.checking.slips import Slip, by_id, listed
from bridge.formats.capabilities import Capability
from bridge.formats.invocation import command
from bridge.formats.limits import NONE as NONE_ACCEPTED
from bridge.formats.limits import Limits
from bridge.formats.sections import section
from bridge.formats.terminal import cut
from bridge.formats.usage import UsageError, list_lines
from bridge.wire.engine import Engine, EngineFault
from model.profile import Profile
from scenarios.format import Scenario

TRIES = 400
"""How many replays shrinking one representative makes at most, unless told otherwise."""

REPRESENTATIVES = 3
"""How many scenarios of one provisional signature are shrunk at most."""

CALLS = ("start", "end", "replies", "fail", "retry", "wait", "settle", "timeout")
"""The kinds of events that act on a call, whose refusals enforce SPEC 4's queue."""

DETAIL = "detail"
"""The kind of the final detail request, where no event is."""

NONE = "none"
"""What an id says a shrunk scenario keeps when it has no event."""

ALLOWED = "allowed"
"""A refusal's rule when the model takes the event the engine refuses."""

WORD = re.compile(r"[^A-Za-z0-9_]+")
"""What an engine's own field name loses in an id (runs of it become `_`)."""

ID = re.compile(
    r"(?P<part>[A-Za-z0-9_-]+)(?:\.(?P<rule>[A-Za-z0-9_]+))?"
    r"@(?P<kind>[a-z]+)(?::(?P<keeps>[a-z]+(?:\+[a-z]+)*))?"
)


SLIP = re.compile(r"slip:[a-z_]+\.[A-Za-z0-9_]+\.[a-z0-9-]+\.[0-9]+")
"""A rule slip's id (bridge/checking/slips.py)."""


def part_word(part: str) -> str:
    """A part as an id writes it: `timed-out render` is `timed-out-render`."""
    return part.replace(" ", "-")


def word(text: str) -> str:
    """Text an engine chose (a field it added) as a word of an id: letters,
    digits and `_`, at most 40 characters."""
    return WORD.sub("_", text)[:40].strip("_") or "_"


@dataclass(frozen=True, order=True)
class Signature:
    """How a divergence fails (see the module's words). `keeps` is None
    until a shrunk scenario says what it needs."""

    part: str
    """The part of SPEC its first differing field belongs to (`PARTS`), or the field."""
    kind: str
    """The kind of the event where it shows (`KINDS`), or `detail`."""
    rule: str = ""
    """For a refusal, SPEC 4.1's rule the model names, or `allowed`; else empty."""
    keeps: tuple[str, ...] | None = None
    """The kinds of events its shrunk scenario keeps, in `KINDS` order."""
    slip: str = ""
    """For a cause a rule slip explains, the slip's id (bridge/checking/slips.py);
    its part and kind are then those of the first divergence of its smallest FAIL."""

    @property
    def id(self) -> str:
        """One word naming the cause: the slip's id, else `PART[.RULE]@KIND[:KEPT+KEPT]`."""
        if self.slip:
            return self.slip
        rule = f".{self.rule}" if self.rule else ""
        kept = "" if self.keeps is None else ":" + ("+".join(self.keeps) or NONE)
        return f"{part_word(self.part)}{rule}@{self.kind}{kept}"

    def provisional(self) -> Signature:
        """What the first divergence alone says: the signature without `keeps`."""
        return replace(self, keeps=None)

    def area(self) -> str:
        """The section of SPEC whose rule it breaks (`spec`), a refusal of
        a call's event counted in SPEC 4 (SPEC 4.1 enforces the queue's
        rules there); a field SPEC does not define is an area of its own."""
        spec = self.spec() if self.part in PARTS or section(self.part) else self.part
        return "SPEC 4" if spec == "SPEC 4.1" and self.kind in CALLS else spec

    def anywhere(self) -> Signature:
        """What a replay looks for to diverge in its area (`area`) at any
        kind of event and in any of its parts: an area, no kind."""
        return Signature(self.area(), "")

    def keeping(self, scenario: Scenario) -> Signature:
        """The signature, keeping what `scenario` (a shrunk one) keeps."""
        return replace(self, keeps=kinds_in(scenario))

    def spec(self) -> str:
        """The SPEC section of the part (of its first field)."""
        return section(PARTS.get(self.part, (self.part,))[0]) or "no SPEC section"

    def same_cause(self, other: Signature) -> bool:
        """Whether two signatures can name one cause: kinds kept of which
        one holds the other's (`nested`), and the same provisional
        signature, or both shrunk and of one area (`area`)."""
        shrunk = self.keeps is not None and other.keeps is not None
        one = self.provisional() == other.provisional() or shrunk and self.area() == other.area()
        return one and nested(self.keeps, other.keeps)

    def said(self) -> str:
        """The signature in words."""
        if self.slip:
            slip = by_id().get(self.slip)
            if slip is None:
                return f"{self.slip}: a rule slip the model no longer has"
            return f"the model agrees with your engine {slip.clause()}"
        where = "the final detail request" if self.kind == DETAIL else f"a {self.kind} event"
        if self.part == "refused":
            if self.rule == ALLOWED:
                what = f"the engine refuses {where} that SPEC allows"
            else:
                what = f"the engine takes {where} that SPEC refuses by rule {self.rule}"
        else:
            fields = PARTS.get(self.part, (self.part,))
            more = ", ..." if len(fields) > 3 else ""
            what = f"the {self.part} ({', '.join(fields[:3])}{more}) differ at {where}"
        if self.keeps is None:
            kept = "not shrunk"
        elif not self.keeps:
            kept = "shown with no event at all"
        else:
            kept = f"{listed([PLURALS[k] for k in self.keeps])} alone show it"
        return f"{what}; {kept} ({self.spec()})"


PLURALS = {
    "message": "messages",
    "start": "starts",
    "end": "ends (by their lines)",
    "replies": "ends by their replies",
    "fail": "fails",
    "retry": "retries",
    "wait": "waits",
    "settle": "settles",
    "timeout": "timeouts",
    "zoom": "zooms",
}
"""Each kind of event, as a cause says what its shrunk scenario keeps."""


def rule_of(found: Divergence | Mapping[str, Any]) -> str:
    """A refusal's rule, as a signature takes it: the one the model names,
    or `allowed` when the model takes the event."""
    expected = found.expected if isinstance(found, Divergence) else found.get("expected")
    return expected if isinstance(expected, str) else ALLOWED


def signature(found: Divergence) -> Signature:
    """The provisional signature of a divergence (without `keeps`)."""
    part = PART_OF.get(found.field, found.field)
    if part not in PARTS and part not in PART_OF:
        part = word(part)
    kind = DETAIL if found.position is None or found.event is None else kind_of(found.event)
    rule = rule_of(found) if found.field == "refused" else ""
    return Signature(part, kind, rule)


def signature_of_json(divergence: Mapping[str, Any]) -> Signature:
    """The provisional signature of a divergence as the JSON report gives it
    (bridge/report.schema.json, `divergence`): for tools that read reports."""
    event = divergence.get("event")
    as_divergence = Divergence(
        0,
        divergence.get("position"),
        event if isinstance(event, dict) else None,
        str(divergence.get("field", "")),
        divergence.get("expected", MISSING),
        divergence.get("found", MISSING),
    )
    return signature(as_divergence)


def parse(text: str) -> Signature:
    """The signature an id names; ValueError saying why when it names none.
    A slip's id names a cause of that slip (of no part nor kind)."""
    if text.startswith("slip:"):
        if SLIP.fullmatch(text) is None:
            raise ValueError(f"not a rule slip's id (slip:MODULE.FUNCTION.CHANGE.N): {text!r}")
        return Signature("slip", "", slip=text)
    found = ID.fullmatch(text)
    if found is None:
        raise ValueError(f"not a cause id (PART@KIND or PART@KIND:KIND+KIND...): {text!r}")
    kinds = (*KINDS, DETAIL)
    if found["kind"] not in kinds:
        raise ValueError(f"{text!r}: {found['kind']!r} is no kind of event ({', '.join(kinds)})")
    keeps = None
    if found["keeps"] == NONE:
        keeps = ()
    elif found["keeps"] is not None:
        keeps = tuple(found["keeps"].split("+"))
        unknown = [k for k in keeps if k not in KINDS]
        if unknown:
            raise ValueError(f"{text!r}: {unknown[0]!r} is no kind of event ({', '.join(KINDS)})")
        keeps = tuple(k for k in KINDS if k in keeps)
    part = found["part"]
    part = next((p for p in PARTS if part_word(p) == part), part)
    if (part == "refused") != (found["rule"] is not None):
        raise ValueError(f"{text!r}: a rule (`.RULE`) goes with `refused`, and only with it")
    return Signature(part, found["kind"], found["rule"] or "", keeps)


def kinds_in(scenario: Scenario) -> tuple[str, ...]:
    """The kinds of events a scenario holds, in `KINDS` order."""
    held = {kind_of(event) for event in scenario.events}
    return tuple(k for k in KINDS if k in held)


def reduced(scenario: Scenario, keeps: Iterable[str]) -> Scenario:
    """The scenario with only its events of the kinds `keeps` names."""
    kept = set(keeps)
    events = [e for e in scenario.events if kind_of(e) in kept]
    return replace(scenario, events=events, lines=None)


class Probe(Protocol):
    """What grouping asks of an engine: whether a scenario diverges with a
    provisional signature (one replay), and a scenario shrunk while it does."""

    def diverges(self, scenario: Scenario, signature: Signature) -> bool: ...

    def shrunk(self, scenario: Scenario, signature: Signature) -> Scenario: ...


def which(
    cut: Scenario, found: Signature, causes: Iterable[Signature], probe: Probe
) -> Signature | None:
    """The first of `causes` a divergence is of: one of its provisional
    signature (`found`) not shrunk, or one whose shrunk scenario keeps
    kinds of events that, alone in `cut` (the scenario up to the
    divergence), still diverge so, or for a cause of another provisional
    signature of its area (`Signature.area`), still diverge in that area
    (one replay each). None when it is of none."""
    for cause in causes:
        if cause.provisional() == found.provisional():
            wanted = found
        elif cause.keeps is not None and cause.area() == found.area():
            wanted = found.anywhere()
        else:
            continue
        if cause.keeps is None or probe.diverges(reduced(cut, cause.keeps), wanted):
            return cause
    return None


@dataclass(frozen=True)
class Member:
    """A failing scenario as grouping takes it: its name in the run, the
    provisional signature of its first divergence, and its events up to
    that divergence (bridge/checking/shrink.py `cut`)."""

    name: str
    signature: Signature
    cut: Scenario


@dataclass
class Cause:
    """One cause: its signature, the scenarios it fails (by their names in
    the run), and its representative, shrunk."""

    signature: Signature
    scenarios: list[str] = field(default_factory=list)
    representative: str | None = None
    """The scenario that was shrunk; None for a cause not shrunk."""
    shrunk: Scenario | None = None
    events_before: int = 0
    """The representative's events up to its divergence, before shrinking."""
    written: str | None = None
    """Where the shrunk scenario was written, once it is."""
    slips_tried: bool = False
    """Whether rule slips were tried on its FAILs (none explains them, unless it is a slip's)."""
    confirmed: bool | None = None
    """For a slip's cause shrunk against the model, whether the engine, replayed
    on the shrunk scenario, diverges there and agrees with the slipped model."""
    alone: bool = False
    """For a slip's cause, whether the engine agrees with the slipped model
    on every answer of the shrunk scenario: it shows this bug and no other."""
    fallbacks: list[str] = field(default_factory=list)
    """For a slip's cause, the other slips (by id) of its group as it was
    judged (slips.py `Explained`), in order, not all tried on each of its
    FAILs (slips.py `fitting` keeps those after its name untried on one):
    what may name it when the engine refutes its slip on its shrunk
    scenario (`confirmed`), each tried on its FAILs then (triage.py `named_by`)."""
    after: list[str] = field(default_factory=list)
    """FAILs of other causes (by their names in the run) in which this
    cause's bug shows too, after theirs or beside it at one answer: listed
    here, counted there (each FAIL is counted once, in the cause of its
    first divergence; one of two bugs at one answer, in one of theirs)."""

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def slip(self) -> Slip | None:
        """The rule slip that explains its FAILs; None when none does."""
        return by_id().get(self.signature.slip) if self.signature.slip else None

    def said(self) -> str:
        """The cause in words: the slip that explains it, in SPEC's terms, or
        how it first diverges."""
        slip = self.slip
        if slip is None:
            none = "; no rule slip explains it" if self.slips_tried else ""
            return self.signature.said() + none
        n = len(self.scenarios)
        these = f"on all {n} of these" if n > 1 else "on this one"
        return f"your engine agrees with SPEC {these} {slip.clause()}"

    def to_json(self) -> dict[str, Any]:
        """The cause as the JSON report holds it (bridge/report.schema.json)."""
        s = self.signature
        return {
            "id": self.id,
            "said": self.said(),
            "slip": None if self.slip is None else self.slip.to_json(),
            "part": s.part,
            "kind": s.kind,
            "rule": s.rule or None,
            "keeps": None if s.keeps is None else list(s.keeps),
            "spec_section": section(PARTS.get(s.part, (s.part,))[0]),
            "scenarios": list(self.scenarios),
            "after": list(self.after),
            "representative": self.representative,
            "events_before": self.events_before if self.representative is not None else None,
            "shrunk_events": None if self.shrunk is None else len(self.shrunk.events),
            "shrunk": self.written,
        }


def nested(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> bool:
    """Whether two shrunk scenarios' kinds of events can be of one cause:
    one holds all the other's (or either is unknown). A shrink that stops
    short of what another reached keeps more kinds, not other ones."""
    if a is None or b is None:
        return True
    return set(a) <= set(b) or set(b) <= set(a)


def could_differ(member: Member, here: list[Cause]) -> bool:
    """Whether a shrink of `member` could name a cause other than those
    `here`: whether some kinds of events its scenario holds, with the kind
    where it diverges, are `nested` with none of theirs (a shrink keeps a
    part of what the scenario holds, and always the event it diverges at).
    Messages alone, at a message, are nested with every other kinds."""
    held = kinds_in(member.cut)
    must = {member.signature.kind} & set(held)
    optional = [k for k in held if k not in must]
    for mask in range(1 << len(optional)):
        keeps = tuple(must | {k for n, k in enumerate(optional) if mask >> n & 1})
        if keeps and not any(nested(c.signature.keeps, keeps) for c in here):
            return True
    return False


def group(
    members: Iterable[Member], probe: Probe, representatives: int = REPRESENTATIVES
) -> list[Cause]:
    """The causes of the failing `members` (see the module's words), the
    cause of the most scenarios first."""
    causes: list[Cause] = []
    by_key: dict[Signature, list[Member]] = {}
    for member in members:
        by_key.setdefault(member.signature.provisional(), []).append(member)
    for key, those in by_key.items():
        left = sorted(those, key=lambda m: (len(m.cut.events), m.name))
        here: list[Cause] = []
        unshrunk: list[Member] = []
        for _ in range(representatives):
            # The smallest scenario whose shrink could name another cause.
            first = next((m for m in left if not here or could_differ(m, here)), None)
            if first is None:
                break
            left.remove(first)
            if not probe.diverges(first.cut, key):
                unshrunk.append(first)  # it diverges otherwise now: it stands for none
                continue
            small = probe.shrunk(first.cut, key)
            named = key.keeping(small)
            shown = Cause(named, [first.name], first.name, small, len(first.cut.events))
            same = next((c for c in here if alike(c, shown, probe)), None)
            if same is None:
                here.append(shown)
                left = [m for m in left if not of_cause(m, shown, probe)]
                continue
            if len(named.keeps or ()) < len(same.signature.keeps or ()):
                shown.scenarios = [*same.scenarios, first.name]
                here[here.index(same)] = shown  # the simpler shrunk scenario names the cause
            else:
                same.scenarios.append(first.name)
        if len(here) == 1:
            # Every scenario shrunk stood for one cause: those that its
            # shrunk scenario's kinds alone no longer show are of it too.
            here[0].scenarios.extend(m.name for m in left)
            left = []
        if left or unshrunk:
            here.append(Cause(key, [m.name for m in unshrunk + left]))
        causes += here
    return sorted(joined(causes), key=lambda c: (-len(c.scenarios), c.id))


def joined(causes: list[Cause]) -> list[Cause]:
    """The causes of several provisional signatures, those that are one bug
    shown at other kinds of events or in other parts of one area made one
    (`Signature.same_cause`: both shrunk, of one area, their kept kinds
    `nested`), named by the one whose shrunk scenario keeps fewest kinds."""
    made: list[Cause] = []
    fewest = sorted(causes, key=lambda c: (len(c.signature.keeps or KINDS), -len(c.scenarios)))
    for cause in fewest:
        same = next((c for c in made if c.shrunk and cause.shrunk and same_bug(c, cause)), None)
        if same is None:
            made.append(cause)
        else:
            same.scenarios += cause.scenarios
    return made


def same_bug(a: Cause, b: Cause) -> bool:
    """Whether two shrunk causes of other provisional signatures are one (`joined`)."""
    return a.signature.provisional() != b.signature.provisional() and a.signature.same_cause(
        b.signature
    )


def alike(a: Cause, b: Cause, probe: Probe) -> bool:
    """Whether two causes of one provisional signature are one: the kinds
    their shrunk scenarios keep are `nested`, or either shrunk scenario,
    reduced to the kinds the other keeps, still diverges so (a replay each:
    two shrinks can each stop short another way)."""
    if a.signature.provisional() != b.signature.provisional():
        return a.signature.same_cause(b.signature)
    if nested(a.signature.keeps, b.signature.keeps):
        return True
    return any(
        one.shrunk is not None
        and other.signature.keeps is not None
        and probe.diverges(reduced(one.shrunk, other.signature.keeps), one.signature)
        for one, other in ((a, b), (b, a))
    )


def of_cause(member: Member, cause: Cause, probe: Probe) -> bool:
    """Whether a member is of a cause: it still diverges with the cause's
    provisional signature reduced to the kinds of events the cause's shrunk
    scenario keeps (no replay when that removes nothing). It is added to
    the cause if so."""
    alone = reduced(member.cut, cause.signature.keeps or ())
    if alone.events == member.cut.events or probe.diverges(alone, cause.signature):
        cause.scenarios.append(member.name)
        return True
    return False


class Replays:
    """`Probe` on an engine, replayed against the model under its profile
    (and within the constants it `accepted`): each try diverges or not with
    a provisional signature (bridge/checking/shrink.py `diverges_as`);
    shrinking a scenario spends
    at most `tries` replays (and `seconds`), its progress in `progress`. An
    engine fault ends the probing: nothing diverges after it, and nothing
    more is shrunk (`fault` says it); so does `deadline` (`time.monotonic`),
    which `late` then says."""

    def __init__(
        self,
        engine: Engine,
        profile: Profile,
        lacks: tuple[Capability, ...],
        tries: int = TRIES,
        seconds: float = math.inf,
        accepted: Limits = NONE_ACCEPTED,
    ) -> None:
        self.engine, self.profile, self.lacks = engine, profile, lacks
        self.tries, self.seconds, self.accepted = tries, seconds, accepted
        self.fault: EngineFault | None = None
        self.progress: Progress | None = None
        self.deadline = math.inf
        self.late = False

    def left(self) -> float:
        """The seconds left before `deadline` (none: `late`)."""
        left = self.deadline - time.monotonic()
        self.late = self.late or left <= 0
        return left

    def still(self, wanted: Signature) -> Callable[[Scenario], bool]:
        """Whether a scenario diverges with `wanted`, or for an area's
        (`Signature.anywhere`, no kind) anywhere in that area."""
        return diverges_as(
            self.engine,
            self.profile,
            wanted,
            strict=False,
            lacks=self.lacks,
            accepted=self.accepted,
            of=signature if wanted.kind else lambda found: signature(found).anywhere(),
        )

    def diverges(self, scenario: Scenario, wanted: Signature) -> bool:
        if self.fault is not None or not scenario.events or self.left() <= 0:
            return False
        try:
            return self.still(wanted.provisional())(scenario)
        except EngineFault as fault:
            self.fault = fault
            return False

    def shrunk(self, scenario: Scenario, wanted: Signature) -> Scenario:
        """A scenario shrunk while it diverges with `wanted`, its texts
        written plainly (shrink.py `plain_texts`) when it still does so:
        tried first, so that a shrink cut short by its time has them too,
        and again on what the shrink leaves."""
        seconds = min(self.seconds, self.left())
        if self.fault is not None or seconds <= 0:
            return scenario
        plain = plain_texts(scenario)
        if plain != scenario and self.diverges(plain, wanted):
            scenario = plain
        self.progress = Progress(scenario, self.tries)
        small, fault = until_fault(
            lambda still: simplify(scenario, still, seconds, self.tries),
            self.still(wanted.provisional()),
            scenario,
            self.progress,
        )
        self.fault = self.fault or fault
        # Texts written plainly when the cause still shows so: a bug of the
        # engine's about text then no longer shows after this one (one replay).
        plain = plain_texts(small)
        if plain != small and self.diverges(plain, wanted):
            return plain
        return small


def read_known(path: Path, option: str = "--known-causes") -> list[Signature]:
    """The causes a list names: one id a line (`Signature.id`), `#`
    comments; a line that names none is a UsageError naming the file and line."""
    known: list[Signature] = []
    for number, words, _ in list_lines(path, option):
        try:
            if len(words) > 1:
                raise ValueError(f"one cause id a line, not {len(words)} words")
            known.append(parse(words[0]))
        except ValueError as error:
            raise UsageError(f"{option} {path}:{number}: {cut(str(error))}") from None
    return list(dict.fromkeys(known))


def write_known(path: Path, causes: Iterable[Signature | Cause], option: str) -> None:
    """A list of causes (`read_known` reads it): each id on its line, a
    cause found in this run followed by a comment saying what it is."""
    lines = [f"# cause ids, one a line ({command()} fuzz --known-causes): what to pass over\n"]
    for cause in causes:
        if isinstance(cause, Cause):
            where = f"; shrunk: {cause.written}" if cause.written else ""
            about = f"{cause.said()}; {len(cause.scenarios)} scenario(s){where}"
            lines.append(f"{cause.id}  # {safe(about)}\n")
        else:
            lines.append(f"{cause.id}\n")
    try:
        path.write_text("".join(lines), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot be written: {error}") from None
