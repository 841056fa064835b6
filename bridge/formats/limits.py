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


class LimitsError(ValueError):
    """A declaration of constants that is not one: an unknown name or a bad value."""


def _number(given: Any) -> bool:
    return isinstance(given, (int, float)) and not isinstance(given, bool) and math.isfinite(given)


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


NONE = Limits()
"""No limits: every constant accepted."""


def _amount(given: Any, where: str) -> Amount:
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
    return Limits(tuple(out))
