"""The T = 10 example of SPEC 3.2, checked by Z3 (laws last_merges_8_9,
first_merges_0_7, first_is_not_last, first_leaves_push of SPEC 8).

At T = 10 the view `0+4, 4+4, 8+1, 9+1` with a budget of 3 lines has two
mergeable pairs: 0+4,4+4 (last message 7, due 3/4 from last, 10/4 from
first) and 8+1,9+1 (last 9, due 1 from last, 2 from first). Push merges
8-9.

"Checked by Z3" means here: the view, its candidates (two adjacent lines of
one level, left index even, parent built; every complete node is built in
these runs) and the comparison `Form` are Z3 terms, and which pair the
planner merges is established by Z3: for every pair it decides whether the
pair is a candidate strictly more due than every older candidate and at
least as due as every newer one (oldest among equals, SPEC 3.1), and
exactly one pair must be. Python only applies the merge and computes push's
list (SPEC 3.2) as the reference.

The rule is stated once over symbolic lines, a symbolic count and symbolic
built parents, and evaluated at a concrete view; `link.views_link`
evaluates it at generated views against `model.view`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import z3

from laws.proofs.concrete import Terms
from laws.proofs.due import Form, more_due, tree_pair
from laws.proofs.result import Proof

Line = tuple[int, int]
"""A view line as (level, index): node (l, i), named `i*2^l+2^l` (SPEC 2)."""

Built = Callable[[Line], bool]
"""Whether a parent line is built."""

EXAMPLE_T = 10
EXAMPLE_VIEW: tuple[Line, ...] = ((2, 0), (2, 1), (0, 8), (0, 9))
EXAMPLE_BUDGET = 3


def name(line: Line) -> str:
    level, index = line
    return f"{index * 2**level}+{2**level}"


def names(view: Sequence[Line]) -> str:
    return ", ".join(name(line) for line in view) or "(empty)"


@dataclass(frozen=True)
class _Line:
    """A view line as Z3 terms: its level, its index, and p = 2^level."""

    level: z3.ArithRef
    index: z3.ArithRef
    p: z3.ArithRef


def _concrete(view: Sequence[Line]) -> list[_Line]:
    return [_Line(z3.IntVal(lv), z3.IntVal(i), z3.IntVal(2**lv)) for lv, i in view]


def _candidates(lines: Sequence[_Line], built: Sequence[z3.BoolRef]) -> list[z3.BoolRef]:
    """Lines k, k+1 are a candidate pair: one level, consecutive indices, the
    left one even, and the parent built (`built[k]`) (SPEC 3.1)."""
    return [
        z3.And(a.level == b.level, b.index == a.index + 1, a.index % 2 == 0, up)
        for a, b, up in zip(lines, lines[1:], built, strict=False)
    ]


def _is_choice(
    lines: Sequence[_Line],
    candidates: Sequence[z3.BoolRef],
    count: z3.ArithRef,
    form: Form,
    k: int,
) -> z3.BoolRef:
    """Pair k (lines k, k+1) is the planner's merge: a candidate, strictly more
    due than every older candidate, at least as due as every newer one."""
    mine = tree_pair(lines[k].p, lines[k].index)
    conditions = [candidates[k]]
    for j, other in enumerate(candidates):
        theirs = tree_pair(lines[j].p, lines[j].index)
        if j < k:
            conditions.append(z3.Implies(other, more_due(form, count, mine, theirs)))
        elif j > k:
            conditions.append(z3.Implies(other, z3.Not(more_due(form, count, theirs, mine))))
    return z3.And(conditions)


def _example_choice(form: Form, k: int) -> z3.BoolRef:
    """`_is_choice` on the example, where every complete node is built."""
    lines = _concrete(EXAMPLE_VIEW)
    built = [z3.BoolVal(True)] * (len(lines) - 1)
    candidates = _candidates(lines, built)
    return _is_choice(lines, candidates, z3.IntVal(EXAMPLE_T), form, k)


class _Rule:
    """The candidate test and the choice rule over n symbolic lines, a
    symbolic count and symbolic built parents, so that Z3 evaluates them at
    any view of n lines."""

    def __init__(self, n: int, form: Form) -> None:
        self.count = z3.Int("T")
        self.lines = [_Line(*z3.Ints(f"l_{k} i_{k} p_{k}")) for k in range(n)]
        self.built = [z3.Bool(f"built_{k}") for k in range(n - 1)]
        candidates = _candidates(self.lines, self.built)
        choices = [_is_choice(self.lines, candidates, self.count, form, k) for k in range(n - 1)]
        constants = [self.count, *self.built]
        constants += [c for line in self.lines for c in (line.level, line.index, line.p)]
        self.terms = Terms(candidates + choices, constants)

    def at(self, view: Sequence[Line], count: int, built: Built) -> tuple[list[int], list[int]]:
        values = [count, *(built((lv + 1, i // 2)) for lv, i in view[:-1])]
        values += [v for lv, i in view for v in (lv, i, 2**lv)]
        got = self.terms.at(values)
        pairs = len(view) - 1
        return (
            [k for k in range(pairs) if got[k]],
            [k for k in range(pairs) if got[pairs + k]],
        )


@functools.lru_cache(maxsize=128)
def _rule(n: int, form: Form) -> _Rule:
    return _Rule(n, form)


def every_node_built(_: Line) -> bool:
    return True


def decide(
    view: Sequence[Line], count: int, form: Form, built: Built = every_node_built
) -> tuple[list[int], list[int]]:
    """The candidate pairs of `view` at T = `count` (positions of their left
    lines) and the pairs the choice rule picks, as Z3 evaluates the rule.
    `built(parent)` says whether a parent is built."""
    if len(view) < 2:
        return [], []
    return _rule(len(view), form).at(view, count, built)


class NoChoice(Exception):
    """Z3 found no single most due pair though some pair is mergeable: the
    form does not order the candidates (it can happen for a wrong form)."""


def choose(
    view: Sequence[Line], count: int, form: Form, built: Built = every_node_built
) -> int | None:
    """The pair the planner merges, as the index of its left line, by Z3:
    the one pair the rule picks; None when no pair is a candidate;
    `NoChoice` when no single pair is picked."""
    candidates, chosen = decide(view, count, form, built)
    if not candidates:
        return None
    if len(chosen) != 1:
        which = "no" if not chosen else "two"
        raise NoChoice(f"T = {count}, view {names(view)}: {which} most due pairs under {form.name}")
    return chosen[0]


def merge(view: Sequence[Line], k: int) -> list[Line]:
    level, index = view[k]
    return [*view[:k], (level + 1, index // 2), *view[k + 2 :]]


def fit(
    view: Sequence[Line], count: int, budget: int, form: Form, built: Built = every_node_built
) -> list[Line]:
    """The parents the planner makes, in order, merging the pair `choose`
    picks while the view has more than `budget` lines and a pair is a
    candidate (SPEC 3.1); `NoChoice` as `choose`."""
    view, made = list(view), []
    while len(view) > budget:
        k = choose(view, count, form, built)
        if k is None:
            break
        level, index = view[k]
        made.append((level + 1, index // 2))
        view = merge(view, k)
    return made


def _halves(parent: Line) -> str:
    level, index = parent
    return f"{name((level - 1, 2 * index))}, {name((level - 1, 2 * index + 1))}"


def _example_merges(form: Form) -> tuple[list[Line], str]:
    """The planner on the example: the parents it makes down to the budget."""
    try:
        made = fit(EXAMPLE_VIEW, EXAMPLE_T, EXAMPLE_BUDGET, form)
    except NoChoice as error:
        return [], str(error)
    return made, "; then ".join(_halves(parent) for parent in made) or "nothing"


def _example_proof(law: str, form: Form, wanted: Line) -> Proof:
    start = time.perf_counter()
    made, merged = _example_merges(form)
    holds = made == [wanted]
    counterexample = None
    if not holds:
        counterexample = (
            f"T = {EXAMPLE_T}, view {names(EXAMPLE_VIEW)}, budget {EXAMPLE_BUDGET}: "
            f"'{form.value}' merges {merged}"
        )
    return Proof(law, holds, "the example, Z3-checked", time.perf_counter() - start, counterexample)


def last_merges_8_9(form: Form = Form.LAST) -> Proof:
    """At T = 10, due from last (`form`) merges 8+1, 9+1, as push does."""
    return _example_proof("last_merges_8_9", form, (1, 4))


def first_merges_0_7(form: Form = Form.FIRST) -> Proof:
    """At T = 10, due from first (`form`) merges 0+4, 4+4 (messages 0-7)."""
    return _example_proof("first_merges_0_7", form, (3, 0))


def first_is_not_last(first: Form = Form.FIRST, last: Form = Form.LAST) -> Proof:
    """At T = 10 the two orders merge different pairs.

    Z3 proves that any pair satisfying the `first` choice differs from any
    pair satisfying the `last` choice, after checking that both exist.
    """
    start = time.perf_counter()
    by_first, by_last = z3.Ints("by_first by_last")
    pairs = range(len(EXAMPLE_VIEW) - 1)
    chosen = [
        z3.Or([z3.And(by_first == k, _example_choice(first, k)) for k in pairs]),
        z3.Or([z3.And(by_last == k, _example_choice(last, k)) for k in pairs]),
    ]
    solver = z3.Solver()
    solver.add(chosen)
    exists = solver.check() == z3.sat
    solver.add(by_first == by_last)
    differ = exists and solver.check() == z3.unsat
    counterexample = None
    if not differ:
        counterexample = (
            f"T = {EXAMPLE_T}, view {names(EXAMPLE_VIEW)}: '{first.value}' merges "
            f"{_example_merges(first)[1]}, '{last.value}' merges {_example_merges(last)[1]}"
        )
    return Proof(
        "first_is_not_last",
        differ,
        "the example, Z3-checked",
        time.perf_counter() - start,
        counterexample,
    )


def push_list(entries: list[tuple[int, int]], state: int) -> list[tuple[int, int]]:
    """Taelin's push (SPEC 3.2): entries newest first, each (state, keep)."""
    if not entries:
        return [(state, 0)]
    (top, keep), rest = entries[0], entries[1:]
    if keep == 0:
        return [(top, 1), *rest]
    return [(state, 0), *push_list(rest, top)]


def push_lines(entries: list[tuple[int, int]], count: int) -> list[Line]:
    """Push's states read as lines, oldest first: each runs to the next newer state."""
    starts = [state for state, _ in reversed(entries)]
    out = []
    for begin, end in zip(starts, [*starts[1:], count], strict=True):
        level = (end - begin).bit_length() - 1
        out.append((level, begin >> level))
    return out


def run(form: Form, steps: int) -> list[tuple[list[Line], list[Line]]]:
    """Append leaves t = 0..steps-1, merging to push's length with Z3's choices.

    Gives, for each t, the planner's view and push's lines.
    """
    view: list[Line] = []
    entries: list[tuple[int, int]] = []
    out = []
    for t in range(steps):
        view.append((0, t))
        entries = push_list(entries, t)
        while len(view) > len(entries):
            k = choose(view, t + 1, form)
            if k is None:
                break
            view = merge(view, k)
        out.append((list(view), push_lines(entries, t + 1)))
    return out


def _differs(view: Sequence[Line], pushed: Sequence[Line]) -> z3.BoolRef:
    if len(view) != len(pushed):
        return z3.BoolVal(True)
    return z3.Or(
        [
            z3.Or(z3.IntVal(a) != z3.IntVal(b), z3.IntVal(i) != z3.IntVal(j))
            for (a, i), (b, j) in zip(view, pushed, strict=True)
        ]
        or [z3.BoolVal(False)]
    )


def first_off_push(form: Form, steps: int) -> tuple[int | None, str]:
    """The first t < steps where the `form` planner's view is not push's, found
    by Z3 (minimising t over the steps' differences), with both views; -1
    when the planner has no single most due pair at some step."""
    try:
        runs = run(form, steps)
    except NoChoice as error:
        return -1, str(error)
    t = z3.Int("t")
    search = z3.Optimize()
    search.add(z3.Or([z3.And(t == s, _differs(v, p)) for s, (v, p) in enumerate(runs)]))
    search.minimize(t)
    if search.check() != z3.sat:
        return None, ""
    first = search.model()[t].as_long()
    view, pushed = runs[first]
    return first, f"at t = {first} the view is {names(view)}, push's lines are {names(pushed)}"


def first_leaves_push(first: Form = Form.FIRST, last: Form = Form.LAST, steps: int = 11) -> Proof:
    """From the empty view, leaves t = 0..steps-1, budget push's length: the
    `first` planner leaves push's lines within these steps (first at t = 9
    for due from first) while the `last` planner stays on them."""
    start = time.perf_counter()
    first_t, first_text = first_off_push(first, steps)
    last_t, last_text = first_off_push(last, steps)
    holds = first_t is not None and last_t is None
    counterexample = None
    if last_t is not None:
        counterexample = f"'{last.value}' leaves push: {last_text}"
    elif first_t is None:
        counterexample = f"'{first.value}' stays on push for t = 0..{steps - 1}"
    strength = f"checked for t = 0..{steps - 1}"
    if holds:
        strength += f"; '{first.value}' first leaves push at t = {first_t}"
    return Proof("first_leaves_push", holds, strength, time.perf_counter() - start, counterexample)
