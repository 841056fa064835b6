"""What SPEC.md says, read from its text, for tests to check the code against."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[2] / "SPEC.md"


@cache
def refusal_rules() -> tuple[str, ...]:
    """The rules of SPEC 4.1's table, in the table's order, each once."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 4.1 ") : text.index("\n## 5.")]
    rules: list[str] = []
    for row in section.splitlines():
        if row.startswith("| ") and row.count("|") == 3:
            for rule in re.findall(r"`([a-z0-9_]+)`", row.split("|")[2]):
                if rule not in rules:
                    rules.append(rule)
    return tuple(rules)


@cache
def refusal_orders() -> dict[str, tuple[str, ...]]:
    """SPEC 4.1's table: for each event, its rules in the table's order."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 4.1 ") : text.index("\n## 5.")]
    orders: dict[str, tuple[str, ...]] = {}
    for row in section.splitlines():
        if row.startswith("| ") and row.count("|") == 3:
            event, rules = (cell.strip() for cell in row.split("|")[1:3])
            named = tuple(re.findall(r"`([a-z0-9_]+)`", rules))
            if named:
                orders[event] = named
    return orders


@cache
def kinds() -> tuple[str, ...]:
    """The kinds SPEC 1 names, in its order."""
    text = SPEC.read_text(encoding="utf-8")
    named = re.search(r"A message has a kind \(([^)]*)\)", text)
    assert named is not None, "SPEC 1 no longer says `A message has a kind (...)`"
    return tuple(re.findall(r"`([a-z]+)`", named[1]))


@cache
def profile_values() -> dict[str, tuple[str, ...]]:
    """SPEC 10's table: each option, in the table's order, and its values as
    written (backticks dropped), the default first."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("\n## 10. ") : text.index("\n## 11. ")]
    values: dict[str, tuple[str, ...]] = {}
    for row in section.splitlines():
        cells = [cell.strip() for cell in row.split("|")]
        if row.startswith("| `") and len(cells) > 3:
            values[cells[1].strip("`")] = tuple(v.strip("`") for v in cells[2].split(", "))
    return values


def profile_defaults() -> dict[str, Any]:
    """SPEC 10's defaults as JSON values, the profile of an engine that
    declares none; `kinds` ("every kind of section 1") read from SPEC 1."""
    every_kind = "every kind of section 1"
    return {
        name: list(kinds()) if values[0] == every_kind else json.loads(values[0])
        for name, values in profile_values().items()
    }
