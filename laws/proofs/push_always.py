"""push_agrees_always (SPEC 3.2, 8): the due order makes push's merges at every t.

Setting (SPEC 3.2): under push alone the list is a bijective binary counter,
digits d_0..d_{n-1} (newest first), `T = sum (1 + d_j) * 2^j`, entry j one
line of level `j + d_j`. Write V(d) for that view and inc(d) for the digits
after one more push. The claim P(d): appending the leaf (0, T) to V(d) and
running the planner of SPEC 3.1 with budget `len(inc(d))` leaves V(inc(d)).

The proof is an induction on n, split on the lowest digit:

- n = 0: the view after the append is the single line 0+1, which has no
  pair, so the planner leaves it, and it is V((0)). (Argued.)
- d_0 = 0: the new leaf and entry 0 (the leaf T-1) form the pair
  (T-1, T): same level 0, left index T-1 even [Z3: new pair is a
  candidate]; its due is exactly 1. Any other pair is two adjacent entries
  L, L-1 with d_L = 0, d_{L-1} = 1, at level L >= 2 [Z3: entry levels];
  the S_{L-1} messages of entries 0..L-2 follow it, and with d_0 = 0,
  S_m <= 2^(m+1) - 3 [Z3: sum bound base and step; the induction over m
  is argued], so its due is below 1 and the new pair beats it under the
  form and tie rule [Z3: new pair beats every older pair]. The new pair is
  the newest candidate, so the oldest-first scan ends on it whatever it
  kept before (argued). Push absorbs the carry: the budget is n while the
  view has n + 1 lines, so exactly one merge is made and the planner then
  stops [Z3: one merge, then stop]; the merged line is entry 0 of
  inc(d) = (1, d_1, ...) and nothing else moves [Z3: bookkeeping].
- d_0 = 1: V(d) plus the leaf is the lift (every line one level up, every
  position doubled) of V(rest) plus its leaf, followed by the new leaf
  [Z3: bookkeeping]. Lifting keeps which lines are pairs and the new leaf
  pairs with nothing [Z3: lift keeps candidates]; the form compares lifted
  pairs at count 2X+1 exactly as the pairs at count X [Z3: lift keeps the
  order]; lines and budget are both one more than rest's [Z3: lift keeps
  the budget]. So the planner makes the lifted merges of rest's step, which
  by P(rest) leave the lift of V(inc(rest)); with the new leaf that is
  V((0, inc(rest))) = V(inc(d)) [Z3: bookkeeping]. (The step from the
  correspondences to "the same merges" is argued.)
- Push is the increment: the counts add one in both cases [Z3].

Each [Z3] obligation is over unbounded integers (2^l generalised to any
p >= 1 where a power appears) and is discharged in milliseconds. What is
argued, not checked: the induction on n and on m, that the scan's choice
is determined by the candidates and comparisons (so equal comparisons give
equal choices), and the reading of SPEC 3.2's digits as lines.

Wrong variants. `Form.T_FOR_T1`, `FIRST` and `SWAPPED` fail "new pair
beats every older pair"; a budget offset of +1 or -1 fails "one merge,
then stop". The values Z3 shows satisfy the obligation's domain, which is
wider than the reachable states (for +1 they are real: at n = 1 the
planner merges nothing; for -1 the first real failure is t = 3, which
push_bounded finds). `Form.T_PLUS_2` and `Form.LAST_FOR_E` (the same order
as T + 2) fail "lift keeps the order", but there only the proof breaks:
they agree with push at every step (push_bounded proves it to t = 32,766).
`Tie.NEWEST` proves: under push no two candidates are equally due.

`new_pair`, `lift` and `absorb` are the terms `link` evaluates against the
model at push's states and on pairs.
"""

from __future__ import annotations

import z3

from laws.proofs.due import Form, Obligation, Pair, discharge, more_due, tree_pair
from laws.proofs.push_bounded import Tie, wins
from laws.proofs.result import Proof


def _tree_pair(name: str) -> tuple[Pair, z3.ArithRef, z3.ArithRef]:
    p, i = z3.Ints(f"p_{name} i_{name}")
    return tree_pair(p, i), p, i


def new_pair(now: z3.ArithRef) -> Pair:
    """The pair of the two newest leaves, T'-2 and T'-1, at count T' (SPEC 3.1)."""
    return Pair(scale=lambda x: x, first=now - 2, end=now, index=now - 2)


def lift(pair: Pair) -> Pair:
    """The pair one level up: every position doubled, index unchanged."""
    assert pair.index is not None
    return Pair(
        scale=lambda x: pair.scale(2 * x),
        first=2 * pair.first,
        end=2 * pair.end,
        index=pair.index,
    )


def absorb(n: z3.ArithRef, budget_offset: int = 0) -> tuple[z3.ArithRef, z3.BoolRef]:
    """d_0 = 0, n entries: the budget (push's length after absorbing the
    carry, n, plus `budget_offset`) and the claim that the view of n + 1
    lines makes exactly one merge under it."""
    budget = n + budget_offset
    return budget, z3.And(n + 1 > budget, n <= budget)


def _bit(*ds: z3.ArithRef) -> list[z3.BoolRef]:
    return [z3.Or(d == 0, d == 1) for d in ds]


def obligations(form: Form, budget_offset: int, tie: Tie) -> list[Obligation]:
    """Every Z3-checked step of the induction, as (label, claim, domain)."""
    out: list[Obligation] = []

    # Entry levels: j + d_j never rises towards the newest entry, two
    # adjacent entries share a level iff d_j = 0 and d_{j-1} = 1, and
    # entries two or more apart never do.
    j, i, d_j, d_prev, d_i = z3.Ints("j i d_j d_prev d_i")
    level_j, level_prev, level_i = j + d_j, j - 1 + d_prev, i + d_i
    out.append(
        (
            "entry levels",
            z3.And(
                level_j >= level_prev,
                (level_j == level_prev) == z3.And(d_j == 0, d_prev == 1),
                level_i < level_prev + 1,
                level_i != level_j,
            ),
            [j >= 1, i >= 0, i <= j - 2, *_bit(d_j, d_prev, d_i)],
        )
    )

    # S_m = sum_{i<m} (1 + d_i) 2^i with d_0 = 0 satisfies 1 <= S_m <= 2^(m+1) - 3.
    s, p, d = z3.Ints("S p d")
    s_1 = (1 + d) * 2**0
    out.append(
        ("sum bound base: S_1 = 1 + d_0 <= 2^2 - 3", z3.And(s_1 >= 1, s_1 <= 2**2 - 3), [d == 0])
    )
    out.append(
        (
            "sum bound step: S <= 2p - 3 gives S + (1 + d) p <= 4p - 3",
            z3.And(s + (1 + d) * p <= 2 * (2 * p) - 3, s + (1 + d) * p >= 1),
            [p >= 1, s >= 1, s <= 2 * p - 3, *_bit(d)],
        )
    )

    # d_0 = 0: T = 1 + 2R, so the leaves T-1 and T form a pair with even left index.
    t, r = z3.Ints("T R")
    out.append(
        ("new pair is a candidate", z3.And(t - 1 >= 0, (t - 1) % 2 == 0), [r >= 0, t == 1 + 2 * r])
    )

    # The new pair (T-1, T) against an older pair at level l >= 2 followed by
    # the S messages of entries 0..l-2 (1 <= S <= 2^l - 3 by the sum bound)
    # and the new leaf, at count T' = T + 1.
    now, gap = z3.Ints("T' S")
    new = new_pair(now)
    old, p_old, i_old = _tree_pair("old")
    domain = [p_old >= 2, i_old >= 0, gap >= 1, gap <= p_old - 3, now - old.end == gap + 1]
    out.append(
        Obligation(
            "new pair beats every older pair",
            wins(form, tie, now, new, old),
            domain,
            [z3.Or([p_old == 2**e for e in range(2, 7)]), now <= 64],
        )
    )

    # Budget: n + 1 lines after the append, push's length n after absorbing.
    n = z3.Int("n")
    out.append(
        (
            "one merge, then stop: n + 1 lines over budget, n lines within it",
            absorb(n, budget_offset)[1],
            [n >= 1],
        )
    )

    # Lift: pairs at count X against their lifts at count 2X + 1.
    x = z3.Int("X")
    a, p_a, i_a = _tree_pair("a")
    b, p_b, i_b = _tree_pair("b")
    out.append(
        Obligation(
            "lift keeps the order",
            more_due(form, 2 * x + 1, lift(a), lift(b)) == more_due(form, x, a, b),
            [x >= 0, p_a >= 1, p_b >= 1, i_a >= 0, i_b >= 0],
            [
                z3.Or([p_a == 2**e for e in range(6)]),
                z3.Or([p_b == 2**e for e in range(6)]),
                a.end <= x,
                b.end <= x,
            ],
        )
    )
    l_a, l_b, k_a = z3.Ints("l_a l_b k_a")
    out.append(
        (
            "lift keeps candidates: same level and parity, the new leaf pairs with none",
            z3.And(
                (l_a + 1 == l_b + 1) == (l_a == l_b),
                (2 * k_a) % 2 == 0,
                l_a + 1 != 0,
            ),
            [l_a >= 0, l_b >= 0],
        )
    )
    lines, budget_r = z3.Ints("lines budget")
    out.append(
        (
            "lift keeps the budget: one more line, one more entry",
            ((lines + 1) > (budget_r + 1)) == (lines > budget_r),
            [],
        )
    )

    # Bookkeeping: counts and levels of the views involved.
    t_r, lv = z3.Ints("T_r level")
    out.append(
        (
            "bookkeeping: positions and levels",
            z3.And(
                # d_0 = 0: the merged leaves T-1, T are inc(d)'s entry 0, of level 1.
                (t + 1) - 2**1 == t - 1,
                # d_0 = 1: V(rest) + leaf lifted covers 2(T_r + 1) = T messages ...
                2 * (t_r + 1) == 2 + 2 * t_r,
                # ... and entry j >= 1 of level j + d_j is entry j-1 of rest lifted.
                lv + d == 1 + ((lv - 1) + d),
            ),
            [t == 1 + 2 * r, *_bit(d)],
        )
    )
    out.append(
        (
            "push counts one more: (0, rest) -> (1, rest) and (1, rest) -> (0, inc rest)",
            z3.And(
                (1 + 1) + 2 * r == (1 + 0) + 2 * r + 1,
                (1 + 0) + 2 * (t_r + 1) == (1 + 1) + 2 * t_r + 1,
            ),
            [],
        )
    )
    return out


def _values(model: z3.ModelRef) -> str:
    named = sorted((decl.name(), model[decl]) for decl in model.decls())
    return ", ".join(f"{name} = {val}" for name, val in named)


def prove_push_always(
    form: Form = Form.LAST, budget_offset: int = 0, tie: Tie = Tie.OLDEST
) -> Proof:
    """Discharge every obligation of the induction above; universal in t.

    `holds` says every Z3 obligation was proved; the induction, the scan
    argument and the reading of SPEC 3.2 tie them together (see the module
    docstring). A failure names the obligation and Z3's values for it.
    """
    return discharge(
        "push_agrees_always",
        "proved for every t (induction over the counter's digits, its arithmetic steps Z3-checked)",
        obligations(form, budget_offset, tie),
        _values,
    )
