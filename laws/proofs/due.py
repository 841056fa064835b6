"""Universal Z3 proofs about the due comparison of SPEC 3.1.

SPEC 3.1 merges the mergeable pair with the greatest `due = (T - last) / 2^l`
and compares dues without division. Three statements are proved here, each
for every input (no bound), with 2^l generalised to any positive integer p:

1. `prove_division_free`: `(T+1)*p_b + e_b*p_a > (T+1)*p_a + e_a*p_b`
   (e = last + 1) holds exactly when `(T - last_a)/p_a > (T - last_b)/p_b`,
   and its two sides are equal exactly when the dues are equal, for every
   integer T, last_a, last_b and p_a, p_b >= 1.
2. `prove_index_order`: for tree pairs (left line `(l, i)`, so first = i*p
   and last = (i+2)*p - 1, i >= 0) the key `(T+1)/p - i` is the due plus 2,
   and the cross-multiplied key comparison orders (and ties) pairs as the
   dues do.
3. `prove_machine_compare`: for T < 2^32 and real pairs (2^(l+1) <= e <= T,
   l < 63), no operation of the division-free compare overflows 64 bits, so
   the 64-bit unsigned compare is the exact integer compare.

The comparison is a parameter (`Form`), so that the wrong forms of SPEC 9
and LAWS-DESIGN (T for T + 1, T + 2 for T + 1, due from first, pair levels
swapped, last for e) run through the same statements; statements 1 and 2
refute each of them with a counterexample that names T, both pairs and
their dues. `Form.INDEX` needs tree pairs and so is stated by 2, not 1.
(LAWS-DESIGN's floor-division key `(T+1-first) >> l` is not modelled.)

`Pair`, `Form`, `more_due`, `as_due` and `tree_pair` are shared with the
push proofs and the example; `machine_sides` is the 64-bit compare of
statement 3. `link.pairs` evaluates these terms against `model.due`.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import z3

from laws.proofs.result import Proof

RLIMIT = 500_000_000
"""Z3's resource limit per query, in Z3's own steps (its `rlimit`). Unlike
its wall-clock `timeout`, the same query stops at the same point on every
machine and under any load, so a loaded machine decides exactly what a
quiet one does. Measured with z3-solver 5.4.1 (the pinned one): the
hardest query of the CI profile (push_bounded's step over 14 digits) takes
2.2 million steps, every query here under 0.7 million; a 2-core machine of
2026 does about 2.5 million a second, so this limit is minutes."""

PROBE_RLIMIT = 25_000_000
"""The resource limit of each extra search that only picks which
counterexample is shown (`refute`)."""


@dataclass(frozen=True)
class Pair:
    """A pair of view lines as Z3 terms (SPEC 3.1).

    `scale(x)` is x * 2^l for the pair's level l (x * p over integers,
    x << l over bit-vectors); `first` is its first message, `end` its last
    message plus one (the `e` of SPEC 3.1), `index` the node index i of its
    left line, or None when the pair is not tied to the tree.
    """

    scale: Callable[[z3.ExprRef], z3.ExprRef]
    first: z3.ExprRef
    end: z3.ExprRef
    index: z3.ExprRef | None = None


class Form(enum.Enum):
    """How "pair a is more due than pair b" is computed.

    `sides(t, a, b)` gives (lhs, rhs): a is more due when lhs > rhs and as
    due when lhs == rhs. `LAST` and `INDEX` are the forms of SPEC 3.1; the
    others are the deliberate breaks of SPEC 9 and LAWS-DESIGN.
    """

    LAST = "(T+1)*2^lb + e_b*2^la > (T+1)*2^la + e_a*2^lb, e = last + 1"
    INDEX = "(T+1)/2^l - i, cross-multiplied"
    T_FOR_T1 = "T for T + 1"
    T_PLUS_2 = "T + 2 for T + 1"
    FIRST = "due from first: first + 1 for e"
    SWAPPED = "pair levels swapped in the cross terms"
    LAST_FOR_E = "last for e"

    def sides(self, t: z3.ExprRef, a: Pair, b: Pair) -> tuple[z3.ExprRef, z3.ExprRef]:
        if self is Form.INDEX:
            if a.index is None or b.index is None:
                raise ValueError("Form.INDEX needs tree pairs (a node index)")
            # (T+1)/pa - ia > (T+1)/pb - ib, times pa*pb, with the minus moved across.
            return (
                b.scale(t + 1) + a.scale(b.scale(b.index)),
                a.scale(t + 1) + a.scale(b.scale(a.index)),
            )
        now = t + {Form.T_FOR_T1: 0, Form.T_PLUS_2: 2}.get(self, 1)
        end_a, end_b = a.end, b.end
        if self is Form.FIRST:
            end_a, end_b = a.first + 1, b.first + 1
        elif self is Form.LAST_FOR_E:
            end_a, end_b = a.end - 1, b.end - 1
        if self is Form.SWAPPED:
            return a.scale(now) + b.scale(end_b), b.scale(now) + a.scale(end_a)
        return b.scale(now) + a.scale(end_b), a.scale(now) + b.scale(end_a)


def more_due(form: Form, t: z3.ExprRef, a: Pair, b: Pair) -> z3.BoolRef:
    """a is strictly more due than b under `form` (unsigned on bit-vectors)."""
    lhs, rhs = form.sides(t, a, b)
    return z3.UGT(lhs, rhs) if z3.is_bv(lhs) else lhs > rhs


def as_due(form: Form, t: z3.ExprRef, a: Pair, b: Pair) -> z3.BoolRef:
    """a and b are equally due under `form`."""
    lhs, rhs = form.sides(t, a, b)
    return lhs == rhs


@dataclass(frozen=True)
class Outcome:
    """Z3's answer to one obligation: proved, refuted (with a model), unknown."""

    proved: bool
    model: z3.ModelRef | None
    reason: str | None


def refute(
    claim: z3.BoolRef,
    domain: Sequence[z3.BoolRef],
    preferred: Sequence[z3.BoolRef] = (),
    smallest: z3.ExprRef | None = None,
    rlimit: int = RLIMIT,
    probe_rlimit: int = PROBE_RLIMIT,
) -> Outcome:
    """Try to refute `claim` over `domain`.

    Proved when `domain and not claim` is unsat. Otherwise the counterexample
    is searched again under the `preferred` constraints (realistic values)
    and, when `smallest` is given, pushed down while Z3 finds one with a
    smaller `smallest`, so that it reads well; this only picks which
    counterexample is shown; each such extra search gets `probe_rlimit` and,
    when it runs out, counts as finding nothing smaller. A query that runs
    out of `rlimit` is neither proved nor refuted (`Outcome.model` None,
    `reason` says so).
    """
    solver = z3.Solver()
    solver.set(rlimit=rlimit)
    solver.add(*domain)
    solver.add(z3.Not(claim))
    verdict = solver.check()
    if verdict == z3.unsat:
        return Outcome(True, None, None)
    if verdict == z3.unknown:
        return Outcome(
            False,
            None,
            f"Z3 could not decide ({solver.reason_unknown()}) within its resource limit "
            f"of {rlimit:,} steps",
        )
    found = solver.model()
    solver.set(rlimit=min(rlimit, probe_rlimit))
    solver.push()
    solver.add(*preferred)
    if solver.check() == z3.sat:
        found = solver.model()
        if smallest is not None:
            found = _bisect(solver, smallest, found)
    solver.pop()
    return Outcome(False, found, None)


def _bisect(solver: z3.Solver, smallest: z3.ExprRef, found: z3.ModelRef) -> z3.ModelRef:
    """The model with the least `smallest` >= 0 that the solver finds."""
    low, high = 0, found.eval(smallest, model_completion=True).as_long()
    while low < high:
        middle = (low + high) // 2
        solver.push()
        solver.add(z3.ULE(smallest, middle) if z3.is_bv(smallest) else smallest <= middle)
        if solver.check() == z3.sat:
            found = solver.model()
            high = found.eval(smallest, model_completion=True).as_long()
        else:
            low = middle + 1
        solver.pop()
    return found


def value(model: z3.ModelRef, term: z3.ExprRef) -> int:
    """The integer a model gives a term (unsigned for bit-vectors)."""
    got = model.eval(term, model_completion=True)
    return got.as_long()


def _aligned(p: z3.ArithRef, first: z3.ArithRef) -> z3.BoolRef:
    """p is a power of two up to 32 and first a multiple of it (a tree pair)."""
    return z3.Or([z3.And(p == 2**k, first % 2**k == 0) for k in range(6)])


@dataclass(frozen=True)
class _IntPair:
    pair: Pair
    p: z3.ArithRef
    last: z3.ArithRef


def _free_pair(name: str) -> _IntPair:
    p, last = z3.Ints(f"p_{name} last_{name}")
    pair = Pair(scale=lambda x, p=p: x * p, first=last + 1 - 2 * p, end=last + 1)
    return _IntPair(pair, p, last)


def tree_pair(p: z3.ArithRef, i: z3.ArithRef) -> Pair:
    """The pair whose left line is node `(l, i)` with 2^l = p, over integers:
    first message i*p, e = (i+2)*p (SPEC 2, 3.1). Every integer proof builds
    its tree pairs here."""
    return Pair(scale=lambda x: x * p, first=i * p, end=(i + 2) * p, index=i)


def _tree_pair(name: str) -> tuple[_IntPair, z3.ArithRef]:
    p, i = z3.Ints(f"p_{name} i_{name}")
    return _IntPair(tree_pair(p, i), p, (i + 2) * p - 1), i


def _cross(t: z3.ArithRef, a: _IntPair, b: _IntPair) -> z3.ArithRef:
    """(T - last_a) * p_b - (T - last_b) * p_a: the dues' difference times p_a*p_b."""
    return (t - a.last) * b.p - (t - b.last) * a.p


def _order_obligations(
    form: Form, t: z3.ArithRef, a: _IntPair, b: _IntPair
) -> list[tuple[str, z3.BoolRef]]:
    # Against the cross-multiplied dues, not the rational ones: the same
    # statement by `_cross_multiplying`, and Z3 answers in a tenth of a second
    # instead of anywhere from one second to a timeout.
    lhs, rhs = form.sides(t, a.pair, b.pair)
    cross = _cross(t, a, b)
    return [
        ("strict", (lhs > rhs) == (cross > 0)),
        ("tie", (lhs == rhs) == (cross == 0)),
    ]


def _cross_multiplying() -> tuple[str, z3.BoolRef, list[z3.BoolRef]]:
    """x_a/p_a > x_b/p_b iff x_a*p_b > x_b*p_a, and = iff =, for p >= 1."""
    x_a, x_b, p_a, p_b = z3.Ints("x_a x_b p_a p_b")
    due_a = z3.ToReal(x_a) / z3.ToReal(p_a)
    due_b = z3.ToReal(x_b) / z3.ToReal(p_b)
    claim = z3.And(
        (due_a > due_b) == (x_a * p_b > x_b * p_a),
        (due_a == due_b) == (x_a * p_b == x_b * p_a),
    )
    return "rational dues compare as cross-multiplied", claim, [p_a >= 1, p_b >= 1]


def _realistic(t: z3.ArithRef, *xs: _IntPair) -> list[z3.BoolRef]:
    inside = [z3.And(x.pair.first >= 0, x.last < t) for x in xs]
    return [t <= 64, *(_aligned(x.p, x.pair.first) for x in xs), *inside]


def _describe_pairs(
    model: z3.ModelRef, form: Form, t: z3.ArithRef, a: _IntPair, b: _IntPair
) -> str:
    now = value(model, t)
    parts = [f"T = {now}"]
    dues = []
    for name, x in (("a", a), ("b", b)):
        p, last = value(model, x.p), value(model, x.last)
        first = value(model, x.pair.first)
        due = Fraction(now - last, p)
        dues.append(due)
        parts.append(f"pair {name}: 2^l = {p}, messages {first}..{last}, due {due}")
    lhs, rhs = (value(model, side) for side in form.sides(t, a.pair, b.pair))
    parts.append(
        f"exact: a more due {dues[0] > dues[1]}, as due {dues[0] == dues[1]}; "
        f"form '{form.value}': lhs {lhs}, rhs {rhs}, "
        f"a more due {lhs > rhs}, as due {lhs == rhs}"
    )
    return "; ".join(parts)


class Obligation(NamedTuple):
    """One query: `claim` must hold for every value satisfying `domain`.

    `preferred` only picks the counterexample that is shown (see `refute`).
    """

    label: str
    claim: z3.BoolRef
    domain: Sequence[z3.BoolRef]
    preferred: Sequence[z3.BoolRef] = ()


def discharge(
    name: str,
    strength: str,
    obligations: Sequence[Obligation | tuple[str, z3.BoolRef, Sequence[z3.BoolRef]]],
    describe: Callable[[z3.ModelRef], str],
    preferred: Sequence[z3.BoolRef] = (),
    smallest: z3.ArithRef | None = None,
) -> Proof:
    """Prove each obligation in turn; the first that fails is reported.

    `describe` renders a counterexample's model; `preferred` (unless the
    obligation has its own) and `smallest` only choose which counterexample
    is shown (see `refute`).
    """
    start = time.perf_counter()
    for item in obligations:
        label, claim, domain, own = Obligation(*item)
        outcome = refute(claim, domain, own or preferred, smallest)
        if not outcome.proved:
            seconds = time.perf_counter() - start
            if outcome.model is None:
                reason = f"{label}: {outcome.reason}"
                return Proof(name, False, "not decided", seconds, reason, decided=False)
            return Proof(name, False, "refuted", seconds, f"{label}: {describe(outcome.model)}")
    return Proof(name, True, strength, time.perf_counter() - start, None)


def prove_division_free(form: Form = Form.LAST) -> Proof:
    """Statement 1: `form` orders and ties any two pairs exactly as the dues do.

    Over unbounded integers: any T, any last_a, last_b, any p_a, p_b >= 1
    (pairs need not lie in the tree), dues exact rationals. Two steps, both
    Z3-checked: the rational dues compare (>, =) as the cross-multiplied
    `(T - last_a)*p_b` against `(T - last_b)*p_a` (for any integers in place
    of T - last, so also for these); and the form's sides compare (>, =) as
    those. `Form.LAST` holds; every other form except `Form.INDEX`
    (rejected: it needs tree pairs) is refuted, with the smallest T that Z3
    finds among pairs of power-of-two levels inside 0..T-1.
    """
    if form is Form.INDEX:
        raise ValueError("Form.INDEX needs tree pairs: use prove_index_order")
    t = z3.Int("T")
    a, b = _free_pair("a"), _free_pair("b")
    domain = [a.p >= 1, b.p >= 1]
    return discharge(
        f"division_free[{form.name}]",
        "proved universally (any integers T, last; 2^l generalised to any p >= 1)",
        [_cross_multiplying()]
        + [(label, claim, domain) for label, claim in _order_obligations(form, t, a, b)],
        lambda m: _describe_pairs(m, form, t, a, b),
        _realistic(t, a, b),
        t,
    )


def prove_index_order(form: Form = Form.INDEX) -> Proof:
    """Statement 2: on tree pairs `(T+1)/p - i` is the due plus 2, and `form`
    orders and ties pairs as the dues do.

    Over unbounded integers: any T, node indices i_a, i_b >= 0, p_a, p_b >= 1,
    with first = i*p and last = (i+2)*p - 1. The key identity is over the
    reals (exact division), so the key order is the due order; the order
    part checks `form` as in `prove_division_free`, by default
    `Form.INDEX`: the key comparison cross-multiplied by p_a*p_b.
    """
    t = z3.Int("T")
    (a, i_a), (b, i_b) = _tree_pair("a"), _tree_pair("b")
    domain = [a.p >= 1, b.p >= 1, i_a >= 0, i_b >= 0]
    shifted = z3.And(
        [
            z3.ToReal(t + 1) / z3.ToReal(x.p) - z3.ToReal(i)
            == z3.ToReal(t - x.last) / z3.ToReal(x.p) + 2
            for x, i in ((a, i_a), (b, i_b))
        ]
    )
    return discharge(
        f"index_order[{form.name}]",
        "proved universally (any integer T, i >= 0; 2^l generalised to any p >= 1)",
        [("key is due + 2", shifted, domain), _cross_multiplying()]
        + [(label, claim, domain) for label, claim in _order_obligations(form, t, a, b)],
        lambda m: _describe_pairs(m, form, t, a, b),
        _realistic(t, a, b),
        t,
    )


def machine_sides(
    t: z3.BitVecRef, e_a: z3.BitVecRef, l_a: z3.BitVecRef, e_b: z3.BitVecRef, l_b: z3.BitVecRef
) -> tuple[z3.BitVecRef, z3.BitVecRef]:
    """The division-free compare of SPEC 3.1 on 64-bit words, as an engine
    computes it: pair a (level l_a, e = e_a) is more due when the first side
    is greater, unsigned."""
    one = z3.BitVecVal(1, 64)
    p_a, p_b = one << l_a, one << l_b
    return (t + 1) * p_b + e_b * p_a, (t + 1) * p_a + e_a * p_b


def prove_machine_compare(t_bits: int = 32) -> Proof:
    """Statement 3: the division-free compare on 64-bit machine integers.

    For every T < 2^t_bits and real pairs (2^(l+1) <= e <= T, 0 <= l < 63):

    a. over integers, with 2^l generalised to any p >= 1 with 2p <= e, every
       term of the compare (T+1, the four products, the two sums) lies in
       0 .. 2^64 - 1;
    b. over 64-bit bit-vectors with p = 1 << l, no operation of the compare
       overflows (Z3's unsigned no-overflow predicates: the exact result
       fits), so each machine value is the exact value and the unsigned
       compare of the two sums is the exact integer compare;
    c. the 64-bit compare gives the answer of the same compare on 128-bit
       zero-extended operands, where nothing wraps (operands below 2^64
       shifted by l <= 62 stay below 2^126, sums below 2^127).

    With t_bits = 32 all hold; with t_bits = 33 Z3 finds an overflowing T.
    l < 63 is needed: `2 << 63` wraps to 0.
    """
    t, e_a, e_b, p_a, p_b = z3.Ints("T e_a e_b p_a p_b")
    bounds = [t >= 0, t < 2**t_bits]
    for p, e in ((p_a, e_a), (p_b, e_b)):
        bounds += [p >= 1, 2 * p <= e, e <= t]
    terms = [t + 1, (t + 1) * p_b, e_b * p_a, (t + 1) * p_a, e_a * p_b]
    terms += [terms[1] + terms[2], terms[3] + terms[4]]
    fits = z3.And([z3.And(x >= 0, x < 2**64) for x in terms])
    strength = f"proved for every T < 2^{t_bits}, l < 63, 2^(l+1) <= e <= T"
    as_ints = discharge(
        "machine_compare",
        strength,
        [("(a) terms fit in 64 bits", fits, bounds)],
        lambda m: (
            ", ".join(f"{x} = {value(m, x)}" for x in (t, p_a, e_a, p_b, e_b))
            + f"; largest term {max(value(m, x) for x in terms)} >= 2^64"
        ),
    )

    w = 64
    tb, ea, eb, la, lb = z3.BitVecs("T e_a e_b l_a l_b", w)
    one, two = z3.BitVecVal(1, w), z3.BitVecVal(2, w)
    pa, pb = one << la, one << lb
    machine = [z3.ULT(tb, z3.BitVecVal(2**t_bits, w))]
    for level, e in ((la, ea), (lb, eb)):
        machine += [z3.ULT(level, 63), z3.ULE(two << level, e), z3.ULE(e, tb)]
    t1 = tb + 1
    ops = [
        ("T + 1", z3.BVAddNoOverflow(tb, one, False)),
        ("(T+1)*2^lb", z3.BVMulNoOverflow(t1, pb, False)),
        ("e_b*2^la", z3.BVMulNoOverflow(eb, pa, False)),
        ("(T+1)*2^la", z3.BVMulNoOverflow(t1, pa, False)),
        ("e_a*2^lb", z3.BVMulNoOverflow(ea, pb, False)),
        ("left sum", z3.BVAddNoOverflow(t1 * pb, eb * pa, False)),
        ("right sum", z3.BVAddNoOverflow(t1 * pa, ea * pb, False)),
    ]

    def wide(x: z3.BitVecRef) -> z3.BitVecRef:
        return z3.ZeroExt(w, x)

    # Multiplying by 1 << l is a shift; shifts keep the 128-bit side cheap.
    w1 = wide(tb) + 1
    wide_gt = z3.UGT(
        (w1 << wide(lb)) + (wide(eb) << wide(la)), (w1 << wide(la)) + (wide(ea) << wide(lb))
    )
    narrow_gt = z3.UGT(*machine_sides(tb, ea, la, eb, lb))
    as_bits = discharge(
        "machine_compare",
        strength,
        [(f"(b) {op} does not overflow 64 bits", fits, machine) for op, fits in ops]
        + [("(c) 64-bit = 128-bit compare", narrow_gt == wide_gt, machine)],
        lambda m: ", ".join(f"{x} = {value(m, x)}" for x in (tb, la, ea, lb, eb)),
    )
    seconds = as_ints.seconds + as_bits.seconds
    if as_ints.holds and as_bits.holds:
        return Proof("machine_compare", True, strength, seconds, None)
    found = [
        f"{where}: {p.counterexample}"
        for where, p in (("integers", as_ints), ("bit-vectors", as_bits))
        if not p.holds
    ]
    return Proof("machine_compare", False, "refuted", seconds, "; ".join(found))
