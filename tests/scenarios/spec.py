"""What SPEC.md says, read from its text, for tests to check the code against."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

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
