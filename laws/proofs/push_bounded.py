"""push_agrees (SPEC 3.2, 8), proved by Z3 for every t up to a bound.

Under push alone Taelin's list is a bijective binary counter: digits d_j
(keep bits, newest first, n of them), `T = sum (1 + d_j) * 2^j`, and entry j
is one view line of level `j + d_j`. Levels never rise from older to newer
entries (push_always checks this), so push's lines are, oldest first, the
lines of level K, then K-1, ..., then 0, each level holding 0, 1 or 2
lines: a count per level, positions following from the counts. This module
states, over K symbolic digits (bit-vectors):

- the view before the step is push's lines for the digits;
- the step appends the leaf `(0, T)` and runs one iteration of the planner
  of SPEC 3.1: candidates are two lines of one level with an even left
  index whose parent is built (every complete node is built here), the
  scan goes oldest first and replaces its pair only by a strictly more due
  one (the oldest among equals; `Tie.NEWEST` replaces on equal dues too),
  dues are compared by the given `Form`, and the budget is push's list
  length after pushing t (plus `budget_offset`);

and proves, for every digit vector of length n <= K:

1. the planner merges exactly when push does (some digit is 0);
2. the merge is push's: the two lines of the level of the lowest 0 digit;
3. then the planner stops: within budget, or no pair left;
4. the view it leaves is push's lines after the increment.

Side conditions that keep the per-level encoding faithful are proved with
them: before the step there is one line per entry; after the append no
level holds more than 2 lines (so a level has at most one pair, its first
two lines, which merge into the end of the level above); the top level K
never merges; and T + 1 < 2^(K+1), so with bit-vectors of 2K + 4 bits no
position (< 2^(K+1)) times 2^l (<= 2^K), nor a sum of two such, wraps.

Induction from the empty view (push's lines for no digits) then gives
push_agrees for every t whose step starts from at most K digits, i.e.
every t <= 2^(K+1) - 2 (K = 14: t <= 32,766, beyond the gist's 20,000).
The induction is argued, not checked by Z3: each Z3 query is part of the
inductive step.

Each claim is its own query (their conjunction is ten times slower), split
by the position of the lowest 0 digit (or none); the cases run over
`processes` spawned processes. K = 5 (t <= 62) is checked first in this
process, so a wrong planner is refuted at once with a small t.

`step_at` evaluates the step's terms at one digit vector (`StepAt`), so
that `link.push_steps` can compare them with the model at push's states.

Wrong variants that this proof does NOT catch, because they still make
push's merge at every step: `Form.T_PLUS_2` (T + 2 for T + 1),
`Form.LAST_FOR_E` (last for e: the same order as T + 2), and `Tie.NEWEST`
(under push no two candidates are ever equally due). It catches
`Form.T_FOR_T1`, `Form.FIRST` and `Form.SWAPPED` (all at t = 9, the T = 10
example) and a budget offset of +1 (t = 1) or -1 (t = 3).
"""

from __future__ import annotations

import enum
import functools
import multiprocessing
import time
from collections.abc import Sequence
from dataclasses import dataclass

import z3

from laws.proofs.concrete import Terms
from laws.proofs.due import Form, Pair, more_due, refute
from laws.proofs.result import Proof

CASE_RLIMIT = 1_500_000_000
"""Z3's resource limit per claim of a case (see `due.RLIMIT`): the deep
profile's 16 digits take several times the CI profile's 14."""
PROBE_RLIMIT = 5_000_000
PRESCREEN_K = 5


class Tie(enum.Enum):
    """Which of equally due pairs the planner merges."""

    OLDEST = "oldest among equals (SPEC 3.1)"
    NEWEST = "newest among equals (a deliberate break)"


@dataclass(frozen=True)
class _Case:
    k: int
    form: Form
    budget_offset: int
    tie: Tie
    lowest_zero: int | None


@dataclass(frozen=True)
class _Verdict:
    proved: bool
    count: int | None
    text: str | None
    seconds: float


def bv_width(k: int) -> int:
    """The bit-vectors' width over k digits: positions below 2^(k+1) times
    2^l <= 2^k, and the sum of two such, never wrap."""
    return 2 * k + 4


def bv_pair(level: int | z3.BitVecRef, first: z3.BitVecRef, end: z3.BitVecRef) -> Pair:
    """A pair of this encoding, on bit-vectors: its left line of level `level`
    starts at message `first`, and `end` is its e (SPEC 3.1)."""
    return Pair(scale=lambda x: x << level, first=first, end=end, index=z3.LShR(first, level))


def wins(form: Form, tie: Tie, count: z3.ExprRef, newer: Pair, older: Pair) -> z3.BoolRef:
    """Whether a scan holding pair `older` takes the `newer` candidate instead:
    when it is strictly more due (the oldest among equals stays, SPEC 3.1);
    with `Tie.NEWEST`, when it is at least as due."""
    if tie is Tie.OLDEST:
        return more_due(form, count, newer, older)
    return z3.Not(more_due(form, count, older, newer))


@dataclass(frozen=True)
class StepAt:
    """The step's terms at one digit vector, each line named `start+count`
    (SPEC 2): the count after the append, push's lines before, the view after
    the append, the left lines of the pairs the candidate test accepts, the
    left line of the pair the scan ends on, the budget, whether the planner
    merges and then stops, the view it leaves, push's lines after the push."""

    count: int
    before: list[str]
    after: list[str]
    candidates: list[str]
    choice: str | None
    budget: int
    merges: bool
    stops: bool
    merged: list[str]
    pushed: list[str]


class _Step:
    """The symbolic step: push's digits, the planner's one iteration, claims."""

    def __init__(self, k: int, form: Form, budget_offset: int, tie: Tie) -> None:
        self.k = k
        width = bv_width(k)

        def bv(v: int) -> z3.BitVecRef:
            return z3.BitVecVal(v, width)

        def one_if(b: z3.BoolRef | bool) -> z3.BitVecRef:
            return z3.If(b, bv(1), bv(0))

        self.present = [z3.Bool(f"present_{j}") for j in range(k)]
        self.digit = [z3.Bool(f"d_{j}") for j in range(k)]
        self.domain: list[z3.BoolRef] = []
        for j in range(k):
            self.domain.append(z3.Implies(z3.Not(self.present[j]), z3.Not(self.digit[j])))
            if j:
                self.domain.append(z3.Implies(self.present[j], self.present[j - 1]))

        def counts(present: list, digit: list) -> list[z3.BitVecRef]:
            """Lines per level 0..k of the view of these digits: entry j has level j + d_j."""
            size = len(present)
            out = []
            for level in range(k + 1):
                older = z3.And(present[level], z3.Not(digit[level])) if level < size else False
                newer = z3.And(present[level - 1], digit[level - 1]) if 1 <= level else False
                out.append(one_if(older) + one_if(newer))
            return out

        entries = sum((one_if(p) for p in self.present), bv(0))
        before = counts(self.present, self.digit)
        self.before = before

        # Push: the digit increment. 0 absorbs the carry, 1 passes it on; a
        # carry past the last digit adds a new digit 0.
        carry: z3.BoolRef = z3.BoolVal(True)
        next_present, next_digit = [], []
        for j in range(k):
            next_digit.append(z3.And(self.present[j], z3.Xor(self.digit[j], carry)))
            next_present.append(z3.Or(self.present[j], carry))
            carry = z3.And(carry, self.present[j], self.digit[j])
        next_present.append(carry)
        next_digit.append(z3.BoolVal(False))
        pushed = counts(next_present, next_digit)
        zero = [z3.And(self.present[j], z3.Not(self.digit[j])) for j in range(k)]
        push_merges = z3.Or(zero) if zero else z3.BoolVal(False)
        push_level: z3.BitVecRef = bv(0)
        for j in reversed(range(k)):
            push_level = z3.If(zero[j], bv(j), push_level)
        push_length = entries + z3.If(push_merges, bv(0), bv(1))
        budget = push_length + budget_offset

        def starts(counts: list[z3.BitVecRef]) -> list[z3.BitVecRef]:
            """Each level's first message: the levels above it come first."""
            out = [bv(0)] * (k + 1)
            for level in reversed(range(k)):
                out[level] = out[level + 1] + (counts[level + 1] << (level + 1))
            return out

        def candidate(counts: list[z3.BitVecRef], start: list, level: int) -> z3.BoolRef:
            """Two lines of one level, left index even, parent built (SPEC 3.1)."""
            built = True  # every complete node is built in this proof
            even = (z3.LShR(start[level], level) & 1) == 0
            return z3.And(z3.UGE(counts[level], 2), even, built)

        # The view after appending the leaf.
        after = [before[0] + 1, *before[1:]]
        start = starts(after)
        self.count = start[0] + after[0]
        lines = entries + 1

        # One planner iteration: scan the candidates oldest first.
        self.candidates = [candidate(after, start, level) for level in range(k + 1)]
        found: z3.BoolRef = z3.BoolVal(False)
        best_level, best_first, best_end = bv(0), bv(0), bv(0)
        for level in reversed(range(k + 1)):
            pair = bv_pair(level, start[level], start[level] + (2 << level))
            best = bv_pair(best_level, best_first, best_end)
            take = z3.And(
                self.candidates[level],
                z3.Or(z3.Not(found), wins(form, tie, self.count, pair, best)),
            )
            found = z3.Or(found, take)
            best_level = z3.If(take, bv(level), best_level)
            best_first = z3.If(take, pair.first, best_first)
            best_end = z3.If(take, pair.end, best_end)

        merges = z3.And(lines > budget, found)
        merged = [
            after[level]
            - z3.If(z3.And(merges, best_level == level), bv(2), bv(0))
            + (z3.If(z3.And(merges, best_level == level - 1), bv(1), bv(0)) if level else 0)
            for level in range(k + 1)
        ]
        merged_start = starts(merged)
        again = z3.Or([candidate(merged, merged_start, level) for level in range(k + 1)])
        stops = z3.Or(z3.Not(merges), lines - 1 <= budget, z3.Not(again))
        self.merges, self.best_level, self.push_level = merges, best_level, push_level
        self.after, self.merged, self.pushed = after, merged, pushed
        self.found, self.budget, self.stops = found, budget, stops
        self.claims: list[tuple[str, z3.BoolRef]] = [
            ("merges exactly when push does", merges == push_merges),
            ("the merge is push's", z3.Implies(merges, best_level == push_level)),
            ("the planner stops after it", stops),
            (
                "the view is push's next lines",
                z3.And([m == p for m, p in zip(merged, pushed, strict=True)]),
            ),
            ("one line per entry", sum(before, bv(0)) == entries),
            ("at most 2 lines a level", z3.And([z3.ULE(c, 2) for c in after])),
            ("the top level never merges", z3.Implies(merges, z3.ULT(best_level, k))),
            ("positions fit in K + 1 bits", z3.ULT(self.count, 2 ** (k + 1))),
        ]

    def case(self, lowest_zero: int | None) -> list[z3.BoolRef]:
        """Digits whose lowest 0 is at `lowest_zero` (None: all digits 1)."""
        if lowest_zero is None:
            return [z3.Implies(p, d) for p, d in zip(self.present, self.digit, strict=True)]
        return [
            self.present[lowest_zero],
            z3.Not(self.digit[lowest_zero]),
            *self.digit[:lowest_zero],
        ]

    def at(self, digits: Sequence[int]) -> StepAt:
        """The step's terms evaluated at push's digits `digits` (newest first,
        at most k of them), for comparison with the model."""
        if len(digits) > self.k:
            raise ValueError(f"{len(digits)} digits, the step has {self.k}")
        k = self.k
        present = [j < len(digits) for j in range(k)]
        got = self._outputs.at(present + [p and digits[j] == 1 for j, p in enumerate(present)])
        count, budget, merges, stops, found, best_level = got[:6]
        before, after, merged, pushed = (
            got[6 + j * (k + 1) : 6 + (j + 1) * (k + 1)] for j in range(4)
        )
        candidates = got[6 + 4 * (k + 1) :]
        lines = _lines(k, after)
        firsts = {level: name for level, name in reversed(lines)}
        return StepAt(
            count=count,
            before=[name for _, name in _lines(k, before)],
            after=[name for _, name in lines],
            candidates=[firsts[lv] for lv in reversed(range(k + 1)) if candidates[lv]],
            choice=firsts[best_level] if found else None,
            budget=budget,
            merges=bool(merges),
            stops=bool(stops),
            merged=[name for _, name in _lines(k, merged)],
            pushed=[name for _, name in _lines(k, pushed)],
        )

    @functools.cached_property
    def _outputs(self) -> Terms:
        scalars = [self.count, self.budget, self.merges, self.stops, self.found, self.best_level]
        views = [self.before, self.after, self.merged, self.pushed]
        return Terms(
            scalars + [c for view in views for c in view] + self.candidates,
            self.present + self.digit,
        )

    def describe(self, model: z3.ModelRef) -> str:
        def ev(x: z3.ExprRef) -> int:
            return model.eval(x, model_completion=True).as_long()

        def truth(x: z3.BoolRef) -> bool:
            return z3.is_true(model.eval(x, model_completion=True))

        digits = [int(truth(d)) for p, d in zip(self.present, self.digit, strict=True) if truth(p)]
        count = ev(self.count)
        failed = [label for label, claim in self.claims if not truth(claim)]
        merge = f"level {ev(self.best_level)}" if truth(self.merges) else "nothing"
        push_merge = f"level {ev(self.push_level)}" if 0 in digits else "nothing"
        return (
            f"t = {count - 1} (T = {count}), push's digits newest first {digits}; "
            f"after the append: {_render(self.k, [ev(c) for c in self.after])}; "
            f"the planner merges {merge} giving {_render(self.k, [ev(c) for c in self.merged])}; "
            f"push merges {push_merge} giving {_render(self.k, [ev(c) for c in self.pushed])}; "
            f"fails: {', '.join(failed)}"
        )


def _lines(k: int, counts: Sequence[int]) -> list[tuple[int, str]]:
    """A per-level view's lines, oldest first, as (level, `start+count` name of SPEC 2)."""
    out, at = [], 0
    for level in reversed(range(k + 1)):
        for _ in range(counts[level]):
            out.append((level, f"{at}+{2**level}"))
            at += 2**level
    return out


def _render(k: int, counts: list[int]) -> str:
    """A per-level view as SPEC 2 names its lines, oldest first."""
    return ", ".join(name for _, name in _lines(k, counts)) or "(empty)"


@functools.lru_cache(maxsize=4)
def _step(k: int, form: Form, budget_offset: int, tie: Tie) -> _Step:
    return _Step(k, form, budget_offset, tie)


def step_at(
    digits: Sequence[int],
    k: int,
    form: Form = Form.LAST,
    budget_offset: int = 0,
    tie: Tie = Tie.OLDEST,
) -> StepAt:
    """The inductive step over `k` digits that `prove_push_bounded` proves,
    evaluated at push's digits `digits` (newest first)."""
    return _step(k, form, budget_offset, tie).at(digits)


def _check(case: _Case) -> _Verdict:
    """Every claim in one case, each its own query.

    One query per claim: the conjunction of all claims took Z3 ten times
    as long on this encoding.
    """
    start = time.perf_counter()
    step = _step(case.k, case.form, case.budget_offset, case.tie)
    domain = step.domain + step.case(case.lowest_zero)
    for label, claim in step.claims:
        outcome = refute(
            claim,
            domain,
            smallest=step.count,
            rlimit=CASE_RLIMIT,
            probe_rlimit=PROBE_RLIMIT,
        )
        if outcome.proved:
            continue
        seconds = time.perf_counter() - start
        if outcome.model is None:
            where = f"{label}, lowest 0 digit at {case.lowest_zero}"
            return _Verdict(False, None, f"{where}: {outcome.reason}", seconds)
        count = outcome.model.eval(step.count, model_completion=True).as_long()
        return _Verdict(False, count, step.describe(outcome.model), seconds)
    return _Verdict(True, None, None, time.perf_counter() - start)


def _run(k: int, form: Form, budget_offset: int, tie: Tie, processes: int) -> list[_Verdict]:
    # Case j fixes the j + 1 lowest digits; low j leave the most free, so
    # they go first.
    cases = [_Case(k, form, budget_offset, tie, j) for j in range(k)]
    cases.append(_Case(k, form, budget_offset, tie, None))
    # A daemonic process (a multiprocessing.Pool worker) may not start processes.
    if processes <= 1 or multiprocessing.current_process().daemon:
        return [_check(case) for case in cases]
    with multiprocessing.get_context("spawn").Pool(min(processes, len(cases))) as pool:
        return pool.map(_check, cases, chunksize=1)


def prove_push_bounded(
    k: int = 14,
    processes: int = 2,
    form: Form = Form.LAST,
    budget_offset: int = 0,
    tie: Tie = Tie.OLDEST,
) -> Proof:
    """push_agrees for every t <= 2^(k+1) - 2, by the inductive step above.

    `form`, `budget_offset` and `tie` state the planner; the defaults are
    SPEC 3.1's. The step is first checked over PRESCREEN_K digits in this
    process (every t <= 62), where a wrong planner shows its smallest
    counterexample in milliseconds; then over k digits in `processes`
    spawned processes (1, or a daemonic caller such as a multiprocessing
    pool's worker: in this process). A refuted step reports the
    smallest T Z3 found, the view after the append, both merges and every
    claim that fails there.
    """
    if k < 1:
        raise ValueError("k counts digits: at least 1")
    start = time.perf_counter()
    verdicts = _run(min(k, PRESCREEN_K), form, budget_offset, tie, 1)
    if k > PRESCREEN_K and all(v.proved for v in verdicts):
        verdicts = _run(k, form, budget_offset, tie, processes)
    seconds = time.perf_counter() - start
    if all(v.proved for v in verdicts):
        return Proof(
            "push_agrees",
            True,
            f"proved for every t <= {2 ** (k + 1) - 2:,} (inductive step over {k} digits)",
            seconds,
            None,
        )
    refuted = [v for v in verdicts if v.count is not None]
    if refuted:
        first = min(refuted, key=lambda v: v.count or 0)
        return Proof("push_agrees", False, "refuted", seconds, first.text)
    unknown = next(v for v in verdicts if not v.proved)
    return Proof("push_agrees", False, "not decided", seconds, unknown.text, decided=False)
