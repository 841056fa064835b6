"""A proof's Z3 terms at concrete values (SPEC 8: linking each proof to the model).

The proofs of this package reason about Z3 terms over symbolic constants.
To compare what a proof states with what `model/` computes, the very terms
a proof reasons about are given values for their constants and reduced by
Z3 to numerals.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

Term = z3.BoolRef | z3.BitVecRef


def numeral(constant: z3.ExprRef, value: int | bool) -> z3.ExprRef:
    """`value` as a Z3 numeral of `constant`'s sort (Bool, bit-vector or Int)."""
    if z3.is_bool(constant):
        return z3.BoolVal(bool(value))
    if z3.is_bv(constant):
        return z3.BitVecVal(int(value), constant.size())
    return z3.IntVal(int(value))


class Terms:
    """Bool and bit-vector terms over the given constants, evaluated together:
    one substitution and one simplification per list of values (built once,
    evaluated at many inputs)."""

    def __init__(self, terms: Sequence[Term], constants: Sequence[z3.ExprRef]) -> None:
        words = [
            z3.If(t, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) if z3.is_bool(t) else t for t in terms
        ]
        self.widths = [word.size() for word in words]
        self.packed = words[0] if len(words) == 1 else z3.Concat(*words)
        self.constants = list(constants)
        self.sources = (z3.Ast * len(self.constants))(*(c.as_ast() for c in self.constants))

    def at(self, values: Sequence[int | bool]) -> list[int]:
        """Each term's value (0 or 1 for a Bool, unsigned for a bit-vector)
        when the constants take `values`, in order; ValueError when a term is
        left symbolic."""
        if len(values) != len(self.constants):
            raise ValueError(f"{len(values)} values for {len(self.constants)} constants")
        put = [numeral(c, v) for c, v in zip(self.constants, values, strict=True)]
        targets = (z3.Ast * len(put))(*(x.as_ast() for x in put))
        # The C call: z3.substitute re-checks every pair's sorts in Python,
        # which costs more than the substitution itself here.
        context = self.packed.ctx
        replaced = z3.Z3_substitute(
            context.ref(), self.packed.as_ast(), len(put), self.sources, targets
        )
        done = z3.simplify(z3.BitVecRef(replaced, context))
        if not z3.is_bv_value(done):
            raise ValueError(f"terms left symbolic: {done}")
        whole = done.as_long()
        out = []
        for width in reversed(self.widths):
            out.append(whole & ((1 << width) - 1))
            whole >>= width
        return out[::-1]
