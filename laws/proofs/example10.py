"""The T = 10 example of SPEC 3.2, checked by Z3 (laws last_merges_8_9,
first_merges_0_7, first_is_not_last, first_leaves_push of SPEC 8).

At T = 10 the view `0+4, 4+4, 8+1, 9+1` with a budget of 3 lines has two
mergeable pairs: 0+4,4+4 (last message 7, due 3/4 from last, 10/4 from
first) and 8+1,9+1 (last 9, due 1 from last, 2 from first). Push merges
8-9.

"Checked by Z3" means here: the view, its candidates (two adjacent lines of
one level, left index even, parent built; every complete node is built in
these runs) and the comparison `Form` are Z3 terms, and which pair the
planner merges is established by Z3: it finds a pair that is strictly more
due than every older candidate and at least as due as every newer one
(oldest among equals, SPEC 3.1), and proves that no other pair is. Python
only applies the merge and computes push's list (SPEC 3.2) as the
reference.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import z3

from laws.proofs.due import Form, Pair, more_due
from laws.proofs.result import Proof

Line = tuple[int, int]
"""A view line as (level, index): node (l, i), named `i*2^l+2^l` (SPEC 2)."""

EXAMPLE_T = 10
EXAMPLE_VIEW: tuple[Line, ...] = ((2, 0), (2, 1), (0, 8), (0, 9))
EXAMPLE_BUDGET = 3


def name(line: Line) -> str:
    level, index = line
    return f"{index * 2**level}+{2**level}"


def names(view: Sequence[Line]) -> str:
    return ", ".join(name(line) for line in view) or "(empty)"


def _pair(line: Line) -> Pair:
    level, index = line
    p = z3.IntVal(2**level)
    i = z3.IntVal(index)
    return Pair(scale=lambda x: x * p, first=i * p, end=(i + 2) * p, index=i)


def _candidates(view: Sequence[Line]) -> list[z3.BoolRef]:
    out = []
    for (la, ia), (lb, ib) in zip(view, view[1:], strict=False):
        level_a, level_b = z3.IntVal(la), z3.IntVal(lb)
        index_a, index_b = z3.IntVal(ia), z3.IntVal(ib)
        built = True  # every complete node is built in these runs
        out.append(z3.And(level_a == level_b, index_b == index_a + 1, index_a % 2 == 0, built))
    return out


def _is_choice(view: Sequence[Line], count: int, form: Form, k: int) -> z3.BoolRef:
    """Pair k (lines k, k+1) is the planner's merge: a candidate, strictly more
    due than every older candidate, at least as due as every newer one."""
    t = z3.IntVal(count)
    candidates = _candidates(view)
    mine = _pair(view[k])
    conditions = [candidates[k]]
    for j, other in enumerate(candidates):
        theirs = _pair(view[j])
        if j < k:
            conditions.append(z3.Implies(other, more_due(form, t, mine, theirs)))
        elif j > k:
            conditions.append(z3.Implies(other, z3.Not(more_due(form, t, theirs, mine))))
    return z3.And(conditions)


class NoChoice(Exception):
    """Z3 found no single most due pair though some pair is mergeable: the
    form does not order the candidates (it can happen for a wrong form)."""


def choose(view: Sequence[Line], count: int, form: Form) -> int | None:
    """The pair the planner merges, as the index of its left line, by Z3.

    Z3 finds k with `_is_choice`, then proves that no other k satisfies it;
    None when no pair is mergeable; `NoChoice` when no single k does.
    """
    if len(view) < 2:
        return None
    choice = z3.Int("choice")
    rule = z3.Or(
        [z3.And(choice == k, _is_choice(view, count, form, k)) for k in range(len(view) - 1)]
    )
    solver = z3.Solver()
    solver.add(rule)
    if solver.check() != z3.sat:
        solver = z3.Solver()
        solver.add(z3.Or(_candidates(view)))
        if solver.check() == z3.unsat:
            return None
        raise NoChoice(f"T = {count}, view {names(view)}: no most due pair under {form.name}")
    found = solver.model()[choice].as_long()
    solver.add(choice != found)
    if solver.check() != z3.unsat:
        raise NoChoice(f"T = {count}, view {names(view)}: two most due pairs under {form.name}")
    return found


def merge(view: Sequence[Line], k: int) -> list[Line]:
    level, index = view[k]
    return [*view[:k], (level + 1, index // 2), *view[k + 2 :]]


def _example_merges(form: Form) -> tuple[list[int], str]:
    """The planner on the example: the merges it makes down to the budget."""
    view, made, said = list(EXAMPLE_VIEW), [], []
    while len(view) > EXAMPLE_BUDGET:
        try:
            k = choose(view, EXAMPLE_T, form)
        except NoChoice as error:
            return made, str(error)
        if k is None:
            break
        made.append(k)
        said.append(f"{name(view[k])}, {name(view[k + 1])}")
        view = merge(view, k)
    return made, "; then ".join(said) or "nothing"


def _example_proof(law: str, form: Form, wanted: int) -> Proof:
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
    return _example_proof("last_merges_8_9", form, 2)


def first_merges_0_7(form: Form = Form.FIRST) -> Proof:
    """At T = 10, due from first (`form`) merges 0+4, 4+4 (messages 0-7)."""
    return _example_proof("first_merges_0_7", form, 0)


def first_is_not_last(first: Form = Form.FIRST, last: Form = Form.LAST) -> Proof:
    """At T = 10 the two orders merge different pairs.

    Z3 proves that any pair satisfying the `first` choice differs from any
    pair satisfying the `last` choice, after checking that both exist.
    """
    start = time.perf_counter()
    by_first, by_last = z3.Ints("by_first by_last")
    pairs = range(len(EXAMPLE_VIEW) - 1)
    chosen = [
        z3.Or(
            [z3.And(by_first == k, _is_choice(EXAMPLE_VIEW, EXAMPLE_T, first, k)) for k in pairs]
        ),
        z3.Or([z3.And(by_last == k, _is_choice(EXAMPLE_VIEW, EXAMPLE_T, last, k)) for k in pairs]),
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
