"""The constants an engine accepts, as the protocol declares them
(bridge/PROTOCOL.md, "Constants an engine accepts"): per constant of a
scenario's header (SPEC 7), a least and a most value, each a number or a
multiple of another constant, and a set of values; read strictly, said in
words, and checked against a scenario's constants before any of its events
is sent."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scenarios.format import CONSTANTS

BOUNDS = {"min": ">=", "max": "<="}
"""The bounds a limit may give, and how a report writes each."""

LARGEST = 2**53
"""The largest number a limit may give (a bound, a value, a multiple's
factor): JSON's largest exact integer, far above any constant a scenario
has, and small enough that a multiple of a constant stays a finite float."""

LEAST = {"node": 4.0, "jobs": 1.0, "ahead": 1.0, "tries": 1.0, "failures": 1.0}
"""SPEC 7's least values of the constants (model/constants.py); 0 for the rest."""

ORDERED = (("floor", "ceiling"), ("cfloor", "cceiling"))
"""SPEC 7's pairs of constants of which the first is at most the second."""

ROUNDS = 200
"""Narrowing rounds at most before limits are taken as meetable (`contradiction`)."""


class LimitsError(ValueError):
    """A declaration of constants that is not one: an unknown name or a bad value."""


def _number(given: Any) -> bool:
    return (
        isinstance(given, (int, float))
        and not isinstance(given, bool)
        and math.isfinite(given)
        and abs(given) <= LARGEST
    )


def _shown(value: float) -> str:
    return f"{value:g}"


def _exact(value: float) -> Fraction:
    """A number as the decimal it was written as: a bound of 1.16 x NODE at
    NODE 25 is 29, where floating point says 28.999999999999996."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _inside(bound: Fraction, up: bool) -> float:
    """The number nearest `bound` on its allowed side (above it when `up`),
    as `_exact` reads it back."""
    near = float(bound)
    while (_exact(near) < bound) if up else (_exact(near) > bound):
        near = math.nextafter(near, math.inf if up else -math.inf)
    return near


@dataclass(frozen=True)
class Amount:
    """A number, or `times` the scenario's value of the constant `of`."""

    times: float
    of: str | None = None

    def value(self, constants: Mapping[str, float]) -> Fraction:
        """The bound, exactly, for a scenario's `constants`."""
        return _exact(self.times) * (1 if self.of is None else _exact(constants[self.of]))

    def __str__(self) -> str:
        return (
            _shown(self.times) if self.of is None else f"{_shown(self.times)} x {self.of.upper()}"
        )


@dataclass(frozen=True)
class Limit:
    """What one constant may be: every bound given holds."""

    name: str
    least: Amount | None = None
    most: Amount | None = None
    among: tuple[float, ...] | None = None
    """The values allowed (`in`), or None for any."""

    def clauses(self) -> list[str]:
        """The limit in words, a clause per bound."""
        name = self.name.upper()
        out = []
        if self.among is not None:
            values = ", ".join(_shown(v) for v in self.among)
            out.append(f"{name} = {values}" if len(self.among) == 1 else f"{name} in {{{values}}}")
        for key, amount in (("min", self.least), ("max", self.most)):
            if amount is not None:
                out.append(f"{name} {BOUNDS[key]} {amount}")
        return out

    def broken(self, constants: Mapping[str, float]) -> str | None:
        """How a scenario's constants break the limit, or None when they keep it."""
        name, value = self.name.upper(), constants[self.name]
        exact = _exact(value)
        if self.among is not None and value not in self.among:
            return f"{name} is {_shown(value)}, not " + " or ".join(_shown(v) for v in self.among)
        for amount, sign in ((self.least, "<"), (self.most, ">")):
            if amount is None:
                continue
            bound = amount.value(constants)
            if (exact < bound) if sign == "<" else (exact > bound):
                of = "" if amount.of is None else f" = {_shown(float(bound))}"
                return f"{name} {_shown(value)} {sign} {amount}{of}"
        return None

    def fitted(self, value: float, constants: Mapping[str, float]) -> float:
        """`value` moved to the nearest value the limit allows (`constants`
        gives the constants a multiple names)."""
        if self.among is not None:
            value = min(self.among, key=lambda v: (abs(v - value), v))
        whole = CONSTANTS[self.name] is int
        if self.least is not None:
            least = self.least.value(constants)
            value = max(value, math.ceil(least) if whole else _inside(least, up=True))
        if self.most is not None:
            most = self.most.value(constants)
            value = min(value, math.floor(most) if whole else _inside(most, up=False))
        return int(value) if whole else value


@dataclass(frozen=True)
class Limits:
    """The limits an engine declares, one per constant it limits, in the
    order of the header's constants; none: it takes any."""

    limits: tuple[Limit, ...] = ()

    def __str__(self) -> str:
        return ", ".join(c for limit in self.limits for c in limit.clauses()) or "none"

    def broken(self, constants: Mapping[str, float]) -> str | None:
        """How a scenario's constants lie outside the limits (the first limit
        broken), or None when they lie within."""
        return next((b for limit in self.limits if (b := limit.broken(constants))), None)

    def fit(self, constants: Mapping[str, float]) -> dict[str, float]:
        """`constants` with each limited constant moved to the nearest value
        its limit allows, in the header's order (so a multiple of NODE is
        taken of NODE moved first). The result may still lie outside, when a
        limit names a constant moved after it, or the limits contradict."""
        out = dict(constants)
        for limit in self.limits:
            out[limit.name] = limit.fitted(out[limit.name], out)
        return out

    def contradiction(self) -> str | None:
        """Why no constants meet the limits and SPEC 7's own bounds (a
        constant's range narrowed to nothing), or None when some may."""
        why = self.ranges()
        return why if isinstance(why, str) else None

    def least(self, name: str) -> float:
        """The least value of constant `name` the limits may leave (SPEC 7's
        own when they contradict)."""
        found = self.ranges()
        return LEAST.get(name, 0.0) if isinstance(found, str) else found[0][name]

    def ranges(self) -> tuple[dict[str, float], dict[str, float]] | str:
        """Each constant's range, least and most, that the limits and SPEC
        7's own bounds may leave; or why they leave none. Each range is
        narrowed by every bound until none changes (or `ROUNDS` pass): a
        range left empty is proof that no constants meet them."""
        low = {name: LEAST.get(name, 0.0) for name in CONSTANTS}
        high = {name: float(LARGEST) for name in CONSTANTS}
        bounds = [(a, "max", Amount(1.0, b)) for a, b in ORDERED]
        for limit in self.limits:
            bounds += [(limit.name, "min", limit.least), (limit.name, "max", limit.most)]
        for _ in range(ROUNDS):
            before = (dict(low), dict(high))
            for name, key, amount in bounds:
                if amount is not None:
                    _narrow(low, high, name, key == "min", amount)
            for name in CONSTANTS:
                why = _keep(self._among(name), low, high, name)
                if why is not None:
                    return f"the limits contradict: no constants meet them ({why})"
            if (low, high) == before:
                break
        return low, high

    def _among(self, name: str) -> tuple[float, ...] | None:
        return next((limit.among for limit in self.limits if limit.name == name), None)


def _narrow(
    low: dict[str, float], high: dict[str, float], name: str, least: bool, amount: Amount
) -> None:
    """Narrow the ranges by the bound `name` >= `amount` (`least`) or <= it."""
    if amount.of is None:
        if least:
            low[name] = max(low[name], amount.times)
        else:
            high[name] = min(high[name], amount.times)
        return
    times, of = amount.times, amount.of
    ends = (times * low[of], times * high[of])
    if least:  # name >= times * of
        low[name] = max(low[name], min(ends))
        if times > 0:
            high[of] = min(high[of], high[name] / times)
        elif times < 0:
            low[of] = max(low[of], high[name] / times)
    else:  # name <= times * of
        high[name] = min(high[name], max(ends))
        if times > 0:
            low[of] = max(low[of], low[name] / times)
        elif times < 0:
            high[of] = min(high[of], low[name] / times)


def _keep(
    among: tuple[float, ...] | None, low: dict[str, float], high: dict[str, float], name: str
) -> str | None:
    """The range of `name` made whole numbers for a whole constant and kept
    to its values `among`; why it is empty, or None."""
    if CONSTANTS[name] is int:
        low[name], high[name] = math.ceil(low[name]), math.floor(high[name])
    if among is not None:
        whole = CONSTANTS[name] is int
        kept = [v for v in among if low[name] <= v <= high[name] and (not whole or v == int(v))]
        if not kept:
            values = ", ".join(_shown(v) for v in among)
            return f"{name.upper()} in {{{values}}}, and {_span(low[name], high[name])}"
        low[name], high[name] = min(kept), max(kept)
    if low[name] > high[name]:
        return f"{name.upper()} at least {_shown(low[name])} and at most {_shown(high[name])}"
    return None


def _span(low: float, high: float) -> str:
    return f"at least {_shown(low)}" if high >= LARGEST else f"from {_shown(low)} to {_shown(high)}"


NONE = Limits()
"""No limits: every constant accepted."""


def _not_huge(given: Any, where: str) -> None:
    """LimitsError when `given` is a number beyond `LARGEST`."""
    if (
        isinstance(given, (int, float))
        and not isinstance(given, bool)
        and not abs(given) <= LARGEST
    ):
        shown = (
            repr(given)
            if len(repr(given)) <= 24
            else f"{repr(given)[:12]}... ({len(repr(given))} characters)"
        )
        raise LimitsError(f"{where}: {shown} is beyond what a constant can be (2**53 at most)")


def _amount(given: Any, where: str) -> Amount:
    _not_huge(given, where)
    if isinstance(given, dict):
        _not_huge(given.get("times"), where)
    if _number(given):
        return Amount(float(given))
    if isinstance(given, dict) and set(given) == {"times", "of"}:
        times, of = given["times"], given["of"]
        if _number(times) and of in CONSTANTS:
            return Amount(float(times), of)
    raise LimitsError(
        f'{where}: a bound is a number or {{"times": NUMBER, "of": CONSTANT}}, not {given!r:.100}'
    )


def parse(given: Any, where: str) -> Limits:
    """The limits a JSON object declares: `{"ceiling": {"min": {"times": 8,
    "of": "node"}}, "tries": {"in": [3]}, ...}`. LimitsError names `where`
    and the problem."""
    if not isinstance(given, dict):
        raise LimitsError(f"{where}: the constants accepted are an object, not {given!r:.100}")
    unknown = sorted(set(given) - set(CONSTANTS), key=str)
    if unknown:
        raise LimitsError(
            f"{where}: no constant {unknown[0]!r:.100} (known: {', '.join(CONSTANTS)})"
        )
    out = []
    for name in (n for n in CONSTANTS if n in given):
        limit = given[name]
        here = f"{where}: {name}"
        if not isinstance(limit, dict) or not limit or set(limit) - {"min", "max", "in"}:
            raise LimitsError(
                f'{here}: a limit is an object of "min", "max" and "in", not {limit!r:.100}'
            )
        among = limit.get("in")
        for value in among if isinstance(among, list) else ():
            _not_huge(value, here)
        if among is not None and (
            not isinstance(among, list) or not among or not all(_number(v) for v in among)
        ):
            raise LimitsError(f'{here}: "in" is a list of numbers, not {among!r:.100}')
        out.append(
            Limit(
                name,
                None if "min" not in limit else _amount(limit["min"], here),
                None if "max" not in limit else _amount(limit["max"], here),
                None if among is None else tuple(sorted({float(v) for v in among})),
            )
        )
    found = Limits(tuple(out))
    why = found.contradiction()
    if why is not None:
        raise LimitsError(f"{where}: {why}")
    return found
