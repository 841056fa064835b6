"""What links each Z3 proof of this package to `model/` (SPEC 3.1, 3.2, 8).

Each proof reasons about its own statement of the planner: its due forms,
pair terms, candidate test, choice and tie rule, fit step, and push's digits.
The checks here evaluate those very terms (Z3 reduces them to numerals, see
`concrete`) on generated inputs and compare each with the model function it
restates; a difference raises `Unlinked`, naming the input and both answers.

- `pairs`: two pairs of a view (the older first) at a count: due.py's forms
  on its tree pairs (`last`, `index`, `first`), push_always's lift and tie
  rule (`lift`, `tie`), push_bounded's bit-vector pairs with its tie rule
  (`bits`), and the 64-bit compare (`machine`), against `model.due.more_due`,
  `laws.push.first.due_from_first` (the model's order with due from first)
  and `model.view.most_due` on a view where only the two pairs are
  mergeable. Every pair of pairs for T <= 16, then generated ones: levels up
  to 20, T up to about 2^28, and equal dues (built so) with T - 1 and T + 1
  beside them, where a form that is off by one in T changes its answer.
- `views_link`: example10's candidate test, choice rule and fit loop against
  `model.view.is_mergeable`, `most_due` and `fit`, on generated views (levels
  up to 20, parents built or not, tied pairs, any budget).
- `push_steps`: push_bounded's inductive step at push's state for t against
  the model's push, push lines, candidates, choice, budget, fit and
  `agree_step`.
- `push_states`: push_always's reading of push's digits (entry j a line of
  level j + d_j), its "one merge, then stop" and "new pair beats every older
  pair" against the model at push's state for t.
- `example_runs`: example10's push and planner runs for t = 0..10 against the
  model's.
- `crosshair_due`: `contracts.due_agrees` (the due forms against
  `model.due.more_due`) under CrossHair, in the deep profile.

Each check returns what it compared. The generated inputs and the answers are
cached, so the laws that share a check (they run in one process) pay once.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import z3
from hypothesis import example, given
from hypothesis import strategies as st

from laws.proofs import contracts, crosshair, example10, push_always, push_bounded
from laws.proofs.concrete import Terms
from laws.proofs.due import Form, Pair, as_due, machine_sides, more_due, tree_pair
from laws.push import counter
from laws.push.first import due_from_first
from laws.registry import Broken, Inconclusive, Profile, settings_for, statement_of
from laws.spec import Line, name, plain
from model import bits, due, push
from model import view as views
from model.node import Node

DIGITS = 20
"""push_bounded's step is evaluated over this many digits beyond its proved
bound: every t < 2^21 - 1, so t up to 10^6."""

SMALL_T = 16
"""Every pair of pairs with T at most this is compared."""

LEVELS = 20
"""The highest level of a generated line: views of a chat of about 10^6
messages, the deep profile's sizes."""


VIEW_LINES = 12
"""The longest generated view: example10's rule over n lines is built once
per n, in time growing as n^2."""


def fewer(profile: Profile) -> int:
    """Generated views and push states, which take milliseconds each where a
    pair takes a fraction of one: a third of the profile's `always_examples`."""
    return profile.always_examples // 3


class Unlinked(AssertionError):
    """A proof's restatement and the model answer differently on an input."""


def linked(law: Callable[..., object], *checks: Callable[[], str]) -> list[str]:
    """Run a law's link checks: what each compared, or Broken for the law
    naming the first difference, or Inconclusive when CrossHair was stopped
    before it finished."""
    try:
        return [check() for check in checks]
    except Unlinked as error:
        raise Broken(
            law.__name__, statement_of(law), f"the proof is not about the model: {error}"
        ) from None
    except crosshair.OutOfBudget as stopped:
        raise Inconclusive(
            law.__name__, statement_of(law), f"linking to the model: {stopped}"
        ) from None


def pair_name(line: Line) -> str:
    level, index = line
    return f"{name(line)},{name((level, index + 1))}"


def node(line: Line) -> Node:
    return Node(line[0], bits.from_int(line[1]))


def pair_end(line: Line) -> int:
    """e of the pair whose left line is `line`: one past its last message."""
    level, index = line
    return (index + 2) << level


def fill(start: int, end: int) -> list[Line]:
    """Messages start..end-1 as the fewest aligned lines, oldest first."""
    out = []
    while start < end:
        level = (start & -start).bit_length() - 1 if start else (end - start).bit_length()
        while start + (1 << level) > end:
            level -= 1
        out.append((level, start >> level))
        start += 1 << level
    return out


def generated(
    strategy: st.SearchStrategy, profile: Profile, examples: int, *explicit: object
) -> list:
    """`explicit`, then `examples` cases Hypothesis draws from `strategy` under
    the run profile's settings (the same ones every run unless it has a seed),
    each once."""
    found: list = []

    def collect(case: object) -> None:
        found.append(case)

    test = given(strategy)(collect)
    for case in explicit:
        test = example(case)(test)
    settings_for(profile, examples)(test)()
    return list(dict.fromkeys(found))


# Pairs.


@dataclass(frozen=True)
class PairCase:
    """Pairs `older` and `newer` (their left lines) of one view at T = `count`:
    `older` ends at or before `newer` starts, both end by `count`."""

    count: int
    older: Line
    newer: Line

    def view(self) -> list[Line]:
        """A view tiling 0..count-1 that holds both pairs."""
        (la, ia), (lb, ib) = self.older, self.newer
        return [
            *fill(0, ia << la),
            (la, ia),
            (la, ia + 1),
            *fill(pair_end(self.older), ib << lb),
            (lb, ib),
            (lb, ib + 1),
            *fill(pair_end(self.newer), self.count),
        ]

    def __str__(self) -> str:
        return (
            f"T = {self.count}, older pair {pair_name(self.older)}, newer {pair_name(self.newer)}"
        )


class _PairTerms:
    """Every restatement of the pair order, over symbolic pairs, in three
    sorts: due.py's and push_always's integers, push_bounded's bit-vectors
    (DIGITS digits), the engine's 64-bit words."""

    def __init__(self) -> None:
        t, p_a, i_a, p_b, i_b = z3.Ints("T p_a i_a p_b i_b")
        a, b = tree_pair(p_a, i_a), tree_pair(p_b, i_b)
        lifted = 2 * t + 1
        self.ints = Terms(
            [
                *_order(Form.LAST, t, a, b),
                *_order(Form.INDEX, t, a, b),
                more_due(Form.FIRST, t, a, b),
                more_due(Form.FIRST, t, b, a),
                push_bounded.wins(Form.LAST, push_bounded.Tie.OLDEST, t, b, a),
                more_due(Form.LAST, lifted, push_always.lift(a), push_always.lift(b)),
                more_due(Form.LAST, lifted, push_always.lift(b), push_always.lift(a)),
            ],
            [t, p_a, i_a, p_b, i_b],
        )
        w = push_bounded.bv_width(DIGITS)
        tb, la, fa, lb, fb = z3.BitVecs("T l_a f_a l_b f_b", w)
        two = z3.BitVecVal(2, w)
        a_bv = push_bounded.bv_pair(la, fa, fa + (two << la))
        b_bv = push_bounded.bv_pair(lb, fb, fb + (two << lb))
        self.bits = Terms(
            [
                more_due(Form.LAST, tb, a_bv, b_bv),
                more_due(Form.LAST, tb, b_bv, a_bv),
                push_bounded.wins(Form.LAST, push_bounded.Tie.OLDEST, tb, b_bv, a_bv),
            ],
            [tb, la, fa, lb, fb],
        )
        tm, ea, lma, eb, lmb = z3.BitVecs("T e_a l_a e_b l_b", 64)
        self.machine = Terms(
            [
                z3.UGT(*machine_sides(tm, ea, lma, eb, lmb)),
                z3.UGT(*machine_sides(tm, eb, lmb, ea, lma)),
            ],
            [tm, ea, lma, eb, lmb],
        )


def _order(form: Form, t: z3.ArithRef, a: Pair, b: Pair) -> list[z3.BoolRef]:
    return [more_due(form, t, a, b), more_due(form, t, b, a), as_due(form, t, a, b)]


@functools.cache
def _pair_terms() -> _PairTerms:
    return _PairTerms()


Answers = dict[str, tuple[tuple[bool, ...], tuple[bool, ...]] | None]
"""Per restatement (a key of PAIR_CHECKS): the proofs' answer and the
model's, or None where it does not apply (outside its sort's range)."""


PAIR_CHECKS = {
    "last": "due.py's '(T+1)*2^lb + e_b*2^la' form (older more due, newer more due, equal)",
    "index": "due.py's '(T+1)/2^l - i' form (older more due, newer more due, equal)",
    "first": "Form.FIRST against the order the laws run on the model as due from first "
    "(older more due, newer more due)",
    "tie": "push_always's tie rule on integers (does the newer pair win)",
    "lift": "push_always's lifted pairs at 2T + 1 (older more due, newer more due)",
    "bits": "push_bounded's bit-vector pairs (older more due, newer more due, "
    "does the newer pair win)",
    "machine": "the 64-bit compare, T < 2^32 (older more due, newer more due)",
}


@functools.cache
def _pair_answers(case: PairCase) -> Answers:
    terms = _pair_terms()
    (la, ia), (lb, ib) = case.older, case.newer
    t = case.count
    a, b = node(case.older), node(case.newer)
    count = bits.from_int(t)
    ab, ba = due.more_due(count, a, b), due.more_due(count, b, a)
    built = {(la + 1, ia // 2), (lb + 1, ib // 2)}
    view = case.view()
    chosen = views.most_due(tuple(node(line) for line in view), count, lambda n: plain(n) in built)
    newer_wins = chosen is not None and view[chosen] == case.newer
    lifted = bits.from_int(2 * t + 1)
    up_a, up_b = Node(la + 1, a.index), Node(lb + 1, b.index)
    ints = terms.ints.at([t, 1 << la, ia, 1 << lb, ib])
    model_order = (ab, ba, not ab and not ba)
    checks: Answers = {
        "last": (_truths(ints[0:3]), model_order),
        "index": (_truths(ints[3:6]), model_order),
        "first": (_truths(ints[6:8]), (due_from_first(count, a, b), due_from_first(count, b, a))),
        "tie": (_truths(ints[8:9]), (newer_wins,)),
        "lift": (
            _truths(ints[9:11]),
            (due.more_due(lifted, up_a, up_b), due.more_due(lifted, up_b, up_a)),
        ),
        "bits": None,
        "machine": None,
    }
    if t < 1 << (DIGITS + 1) and max(la, lb) <= DIGITS:
        got = terms.bits.at([t, la, ia << la, lb, ib << lb])
        checks["bits"] = (_truths(got), (ab, ba, newer_wins))
    if t < 1 << 32:
        got = terms.machine.at([t, pair_end(case.older), la, pair_end(case.newer), lb])
        checks["machine"] = (_truths(got), (ab, ba))
    return checks


def _truths(values: Sequence[int]) -> tuple[bool, ...]:
    return tuple(bool(v) for v in values)


def _check_pair(case: PairCase, which: Sequence[str]) -> None:
    answers = _pair_answers(case)
    for check in which:
        both = answers[check]
        if both is not None and both[0] != both[1]:
            raise Unlinked(
                f"{case}: {PAIR_CHECKS[check]}: the proof's terms give {both[0]}, "
                f"the model gives {both[1]}"
            )


def small_pairs() -> Iterator[PairCase]:
    """Every PairCase with T <= SMALL_T."""
    for count in range(1, SMALL_T + 1):
        lefts = [
            (level, index)
            for level in range(count.bit_length())
            for index in range(0, count >> level, 2)
            if pair_end((level, index)) <= count
        ]
        for older in lefts:
            for newer in lefts:
                if pair_end(older) <= newer[1] << newer[0]:
                    yield PairCase(count, older, newer)


@st.composite
def any_pairs(draw: st.DrawFn) -> PairCase:
    """Two pairs of levels up to LEVELS, the newer anywhere after the older."""
    la, lb = draw(st.integers(0, LEVELS)), draw(st.integers(0, LEVELS))
    ia = 2 * draw(st.integers(0, 63))
    unit = 2 << lb
    gap = draw(st.integers(0, 63))
    ib = 2 * (-(-pair_end((la, ia)) // unit) + gap)
    count = pair_end((lb, ib)) + draw(st.integers(0, 1 << 21))
    return PairCase(count, (la, ia), (lb, ib))


@st.composite
def tied_pairs(
    draw: st.DrawFn, offsets: Sequence[int] = (0, -1, 1), top: int = LEVELS, most: int = 63
) -> PairCase:
    """Two pairs of equal due at T, given at T plus one of `offsets`; the
    older one's level at most `top`, its index and the due at most 2 `most`.

    The older pair (la, ia) and a newer one of a lower level lb have equal
    dues (T - last)/2^l exactly when T - last_a = 2^(la+1) * y and
    T - last_b = 2^(lb+1) * y for some y >= 1 (both dues are then 2y); an
    older pair of a lower level never ties with a newer one.
    """
    lb = draw(st.integers(0, top - 1))
    la = draw(st.integers(lb + 1, top))
    ia = 2 * draw(st.integers(0, most))
    y = draw(st.integers(1, most))
    tied = pair_end((la, ia)) - 1 + (y << (la + 1))
    last_b = tied - (y << (lb + 1))
    newer = (lb, ((last_b + 1) >> lb) - 2)
    return PairCase(tied + draw(st.sampled_from(offsets)), (la, ia), newer)


def pair_cases() -> st.SearchStrategy[PairCase]:
    return st.one_of(any_pairs(), tied_pairs())


@functools.cache
def pair_list(profile: Profile) -> tuple[PairCase, ...]:
    """Every PairCase with T <= SMALL_T, SPEC 3.1's tie at T = 7 (pair 0-3 and
    pair 4-5 both due 2) and SPEC 3.2's example, and the profile's
    `always_examples` generated ones, smallest T first."""
    drawn = generated(
        pair_cases(),
        profile,
        profile.always_examples,
        PairCase(7, (1, 0), (0, 4)),
        PairCase(10, (2, 0), (0, 8)),
    )
    cases = {*small_pairs(), *drawn}
    return tuple(sorted(cases, key=lambda c: (c.count, c.older, c.newer)))


def pairs(profile: Profile, which: Sequence[str]) -> str:
    """Compare the restatements `which` (keys of PAIR_CHECKS) with the model on
    `pair_list(profile)`, raising Unlinked at the first difference; what was
    compared."""
    cases = pair_list(profile)
    for case in cases:
        _check_pair(case, which)
    small = sum(1 for c in cases if c.count <= SMALL_T)
    return f"{len(cases):,} pairs of pairs (all {small:,} with T <= {SMALL_T})"


# Views.


@dataclass(frozen=True)
class ViewCase:
    """A view at T = `count`, the parents that are built (None: all), a budget."""

    count: int
    view: tuple[Line, ...]
    built: frozenset[Line] | None
    budget: int

    def is_built(self, parent: Line) -> bool:
        return self.built is None or parent in self.built

    def __str__(self) -> str:
        built = "every parent" if self.built is None else ", ".join(map(name, sorted(self.built)))
        return (
            f"T = {self.count}, view {', '.join(map(name, self.view))}, built: {built or 'none'}, "
            f"budget {self.budget} lines"
        )


@st.composite
def view_cases(draw: st.DrawFn, most: int) -> ViewCase:
    """A view of 2 to `most` lines of levels up to LEVELS, or the view of
    `PairCase.view` around two equally due pairs when it has at most `most`
    lines; every parent built, or some (always those two pairs'), and a
    budget."""
    # The lines around a tie grow with its levels, index and due: small ones
    # keep it within `most` lines.
    pair = draw(tied_pairs([0], (most - 4) // 2, 3)) if draw(st.booleans()) else None
    if pair is not None and len(pair.view()) <= most:
        lines, count = pair.view(), pair.count
        must = {(pair.older[0] + 1, pair.older[1] // 2), (pair.newer[0] + 1, pair.newer[1] // 2)}
    else:
        lines, count, must = [], 0, set()
        for _ in range(draw(st.integers(2, most))):
            level = draw(st.integers(0, LEVELS))
            while count % (1 << level):
                level -= 1
            lines.append((level, count >> level))
            count += 1 << level
    built = None
    if must or draw(st.booleans()):
        parents = [(level + 1, index // 2) for level, index in lines[:-1]]
        more = draw(st.booleans())
        built = frozenset(must | {p for p in parents if more and draw(st.booleans())})
    return ViewCase(count, tuple(lines), built, draw(st.integers(1, len(lines))))


@functools.cache
def _view_answers(case: ViewCase) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """(the proof's, the model's) candidates, choice and fit merges."""
    nodes = tuple(node(line) for line in case.view)
    count = bits.from_int(case.count)

    def built(parent: Node) -> bool:
        return case.is_built(plain(parent))

    mergeable = [k for k in range(len(nodes) - 1) if views.is_mergeable(nodes, k, built)]
    choice = views.most_due(nodes, count, built)
    made = views.fit(nodes, count, built, lambda _: 1, case.budget).merges
    model = (mergeable, [] if choice is None else [choice], [plain(n) for n in made])
    candidates, chosen = example10.decide(case.view, case.count, Form.LAST, case.is_built)
    try:
        merged: object = example10.fit(case.view, case.count, case.budget, Form.LAST, case.is_built)
    except example10.NoChoice as error:
        merged = str(error)
    return (candidates, chosen, merged), model


VIEW_PARTS = ("candidate pairs (positions)", "the most due pair (position)", "the fit's merges")


@functools.cache
def view_list(profile: Profile) -> tuple[ViewCase, ...]:
    """SPEC 3.2's example and `fewer(profile)` generated views of up to
    VIEW_LINES lines, shortest first."""
    example_case = ViewCase(
        example10.EXAMPLE_T, example10.EXAMPLE_VIEW, None, example10.EXAMPLE_BUDGET
    )
    cases = generated(view_cases(VIEW_LINES), profile, fewer(profile), example_case)
    return tuple(sorted(cases, key=lambda c: (len(c.view), c.count)))


def views_link(profile: Profile) -> str:
    """Compare example10's candidate test, choice and fit with the model's on
    `view_list(profile)`, raising Unlinked at the first difference; what was
    compared."""
    cases = view_list(profile)
    for case in cases:
        proof, model = _view_answers(case)
        for part, said, found in zip(VIEW_PARTS, proof, model, strict=True):
            if said != found:
                raise Unlinked(
                    f"{case}: {part}: example10's rule gives {said}, the model gives {found}"
                )
    tied = sum(1 for c in cases if _top_tied(c))
    return f"{len(cases):,} views of up to {VIEW_LINES} lines ({tied:,} with the greatest due tied)"


def _top_tied(case: ViewCase) -> bool:
    """Whether two mergeable pairs share the greatest due, (T - last)/2^l."""
    dues = [
        Fraction(case.count - pair_end(a) + 1, 1 << a[0])
        for a, b in itertools.pairwise(case.view)
        if b == (a[0], a[1] + 1) and a[1] % 2 == 0 and case.is_built((a[0] + 1, a[1] // 2))
    ]
    return len(dues) >= 2 and dues.count(max(dues)) >= 2


# Push: push_bounded's step and push_always's reading of the digits.


def _names(view: Sequence[Node]) -> list[str]:
    return [name(plain(n)) for n in view]


def _model_step(t: int, stack: push.Stack) -> push_bounded.StepAt:
    """What the model does at push's state for t (the list after pushing
    0..t-1): the fields of push_bounded's StepAt, from the model."""
    count = bits.from_int(t + 1)
    # model.push.lines wants a non-empty list; push's lines of none are no lines.
    view = push.lines(stack, bits.from_int(t)) if stack else ()
    grown = (*view, Node(0, bits.from_int(t)))
    pushed = push.push(stack, bits.from_int(t))
    choice = views.most_due(grown, count, lambda _: True)
    made = views.fit(grown, count, lambda _: True, lambda _: 1, len(pushed)).merges
    return push_bounded.StepAt(
        count=t + 1,
        before=_names(view),
        after=_names(grown),
        candidates=[
            name(plain(grown[k]))
            for k in range(len(grown) - 1)
            if views.is_mergeable(grown, k, lambda _: True)
        ],
        choice=None if choice is None else name(plain(grown[choice])),
        budget=len(pushed),
        merges=len(made) >= 1,
        stops=len(made) <= 1,
        merged=_names(push.agree_step(view, pushed, count)),
        pushed=_names(push.lines(pushed, count)),
    )


def _check_step(t: int, stack: push.Stack, k: int) -> None:
    digits = counter.digits(t)
    proof = push_bounded.step_at(digits, k if t <= 2 ** (k + 1) - 2 else DIGITS)
    model = _model_step(t, stack)
    differ = [
        f"{field}: the proof's step gives {getattr(proof, field)}, "
        f"the model gives {getattr(model, field)}"
        for field in push_bounded.StepAt.__dataclass_fields__
        if getattr(proof, field) != getattr(model, field)
    ]
    if differ:
        raise Unlinked(f"t = {t} (push's digits {digits}): " + "; ".join(differ))


SMALL_STEPS = 2**6 - 2
"""push_bounded's prescreen bound (5 digits) and one digit more: every t up
to here is compared, on the model's own push from the empty list."""


@functools.cache
def push_ts(profile: Profile) -> tuple[int, ...]:
    """`fewer(profile)` generated t <= 10^6 beyond SMALL_STEPS, and t = 2^j - 2
    (all digits 1: the push carries through every digit) up to j = 20,
    ascending."""
    carries = [2**j - 2 for j in range(7, 21)]
    drawn = generated(st.integers(SMALL_STEPS + 1, 10**6), profile, fewer(profile), *carries)
    return tuple(sorted(drawn))


def push_steps(profile: Profile) -> str:
    """Compare push_bounded's step over the profile's `push_k` digits (DIGITS
    beyond its bound) with the model at push's state for every
    t <= SMALL_STEPS and at `push_ts(profile)` (push's list from its digits,
    `laws.push.counter`), raising Unlinked at the first difference; what was
    compared."""
    k = profile.push_k
    stack: push.Stack = ()
    for t in range(SMALL_STEPS + 1):
        _check_step(t, stack, k)
        stack = push.push(stack, bits.from_int(t))
    drawn = push_ts(profile)
    for t in drawn:
        _check_step(t, counter.stack(t), k)
    return f"every t <= {SMALL_STEPS} and {len(drawn):,} t < 2^20"


@functools.cache
def _absorbing() -> Terms:
    """push_always's d_0 = 0 step over (n, T', p, i, m): "one merge, then
    stop" with n entries, its budget is m, and "the new pair beats" the older
    pair (l, i) with 2^l = p at count T'."""
    n, now, p, i, m = z3.Ints("n T' p i m")
    budget, one_merge = push_always.absorb(n)
    tie = push_bounded.Tie.OLDEST
    beats = push_bounded.wins(Form.LAST, tie, now, push_always.new_pair(now), tree_pair(p, i))
    return Terms([one_merge, budget == m, beats], [n, now, p, i, m])


def _check_state(t: int) -> bool:
    """At push's state for t: the model's lines are entry j at level j + d_j;
    with d_0 = 0, push_always's "one merge, then stop" is the model's fit
    under the model's budget, and its "new pair beats" on the model's most
    due older pair is the model's choice between the two. Whether an older
    pair was there to beat."""
    digits = counter.digits(t)
    view = push.lines(counter.stack(t), bits.from_int(t)) if t else ()
    levels = [n.level for n in reversed(view)]
    if levels != [j + d for j, d in enumerate(digits)]:
        raise Unlinked(
            f"t = {t}: push_always reads digits {digits} as levels "
            f"{[j + d for j, d in enumerate(digits)]} (newest first), the model's lines "
            f"have {levels}"
        )
    if not digits or digits[0] == 1:
        return False
    count = bits.from_int(t + 1)
    grown = (*view, Node(0, bits.from_int(t)))
    budget = len(push.push(counter.stack(t), bits.from_int(t)))
    merges = len(views.fit(grown, count, lambda _: True, lambda _: 1, budget).merges)
    new = Node(1, bits.from_int(t // 2))
    older = views.most_due(grown[:-1], count, lambda _: True)
    level, index = plain(grown[older]) if older is not None else (0, 0)
    one_merge, same_budget, beats = _absorbing().at([len(digits), t + 1, 1 << level, index, budget])
    if (one_merge, same_budget) != (merges == 1, True):
        raise Unlinked(
            f"t = {t}: push_always's 'one merge, then stop' with {len(digits)} entries gives "
            f"{bool(one_merge)} under budget {len(digits)}; the model's fit under its budget "
            f"{budget} makes {merges} merges"
        )
    if older is None:
        return False
    both = {new, Node(level + 1, bits.from_int(index // 2))}
    model = views.most_due(grown, count, both.__contains__) == len(grown) - 2
    if bool(beats) != model:
        raise Unlinked(
            f"t = {t}: the new pair {pair_name((0, t - 1))} against the older "
            f"{pair_name((level, index))}: push_always's 'new pair beats' gives {bool(beats)}, "
            f"the model chooses the new pair: {model}"
        )
    return True


def push_states(profile: Profile) -> str:
    """Compare push_always's digits and d_0 = 0 claims with the model at every
    t <= SMALL_STEPS and `push_ts(profile)`, raising Unlinked at the first
    difference; what was compared."""
    ts = [*range(SMALL_STEPS + 1), *push_ts(profile)]
    beaten = sum(_check_state(t) for t in ts)
    return f"{len(ts):,} t < 2^20 ({beaten:,} with an older pair for the new pair to beat)"


# The T = 10 runs.


def example_runs(steps: int = 11) -> str:
    """Compare example10's runs (push's list and lines, the planner with due
    from last and from first, t = 0..steps-1) with the model's push and
    agree_step under `more_due` and `due_from_first`."""
    orders: list[tuple[Form, Callable[[bits.Bits, Node, Node], bool]]] = [
        (Form.LAST, due.more_due),
        (Form.FIRST, due_from_first),
    ]
    for form, order in orders:
        runs = example10.run(form, steps)
        view: tuple[Node, ...] = ()
        stack: push.Stack = ()
        for t in range(steps):
            stack = push.push(stack, bits.from_int(t))
            count = bits.from_int(t + 1)
            view = push.agree_step(view, stack, count, order)
            model = ([plain(n) for n in view], [plain(n) for n in push.lines(stack, count)])
            proof = tuple(runs[t])
            if proof != model:
                raise Unlinked(
                    f"t = {t}, '{form.value}': example10 runs to view and push lines {proof}, "
                    f"the model to {model}"
                )
    return f"t = 0..{steps - 1}, both orders"


def example_links(law: Callable[..., object], profile: Profile, forms: Sequence[str]) -> str:
    """The links of a law proved on SPEC 3.2's example (example10): its
    candidate test, choice and fit on views, its due forms `forms` (keys of
    PAIR_CHECKS) on pairs; what they compared, or Broken."""
    views, compared = linked(
        law,
        lambda: views_link(profile),
        lambda: pairs(profile, forms),
    )
    return (
        f"linked to the model: example10's candidate test, choice and fit on {views}, "
        f"its {' and '.join(forms)} due forms on {compared}"
    )


CROSSHAIR_ITERATIONS = {"deep": 200}
"""CrossHair's budget per profile, in iterations without progress (a time
budget would make it vary); a profile not named here skips it, the CI one
for time: CrossHair needs seconds where the pairs above take milliseconds."""


def crosshair_due(profile: Profile) -> str:
    """CrossHair on `contracts.due_agrees` (T < 32, levels <= 2, indices < 8):
    what it said, or Unlinked with its counterexample (OutOfBudget when it
    was stopped first)."""
    iterations = CROSSHAIR_ITERATIONS.get(profile.name)
    if iterations is None:
        return f"CrossHair not run in the {profile.name} profile"
    verdict = crosshair.check(
        Path(contracts.__file__),
        f"--max_uninteresting_iterations={iterations}",
        cpu_seconds=60 + iterations,
    )
    if verdict.counterexamples is not None:
        raise Unlinked(f"CrossHair: {verdict.counterexamples}")
    said = "confirmed over all paths" if verdict.confirmed else "no counterexample, not confirmed"
    return (
        f"CrossHair on the bit lists of T < 32, levels <= 2, indices < 8: {said} "
        f"({iterations} iterations)"
    )
