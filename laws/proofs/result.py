"""What a Z3 proof module hands back (SPEC 8: each law says how strongly it holds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Proof:
    """The outcome of one proof.

    `holds` is True only when every obligation was discharged (Z3 answered
    unsat to its negation); `strength` says over which inputs, e.g. "proved
    universally" or "proved for every t <= 32,766"; `seconds` is the wall time;
    `counterexample` names the values that break the claim, or says why Z3
    could not decide, when `holds` is False. `decided` is False when Z3
    answered unknown (it ran out of its resource limit): then the claim is
    neither proved nor refuted, and `holds` is False.
    """

    name: str
    holds: bool
    strength: str
    seconds: float
    counterexample: str | None
    decided: bool = True
