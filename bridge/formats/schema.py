"""A value checked against one of the kit's JSON Schemas (2020-12), in the
standard library: the keywords those schemas use, and no other. A report
another machine wrote (`matrix` reads them) is untrusted input, checked
whole before any of it is used. A schema keyword this checker does not
know is refused (SchemaError), never skipped, so a schema that starts
using one cannot let values through unchecked; tests/bridge/test_schema.py
holds it to `jsonschema` on the kit's report schema."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

ANNOTATIONS = frozenset(("$schema", "$id", "$defs", "$comment", "title", "description"))
"""Keywords that say something of a schema and check nothing."""

TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "number": (int, float),
    "integer": (int, float),
}


A_TYPE = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "boolean": "true or false",
    "null": "null",
    "number": "a number",
    "integer": "an integer",
}
"""Each type as a problem names it (`"soon" is not a number`)."""


class SchemaError(ValueError):
    """A schema that uses a keyword this checker does not know."""


@dataclass(frozen=True)
class At:
    """Where a check is: the whole schema (for `$ref`), the schema object
    the keyword is in, and the place in the value (`scenarios[3].status`)."""

    root: dict[str, Any]
    schema: dict[str, Any]
    where: str

    def inside(self, part: str) -> str:
        """The place of a part of the value here (`.name` or `[k]`)."""
        return f"{self.where}{part}".lstrip(".")


@cache
def load(path: Path) -> dict[str, Any]:
    """A schema file, read once."""
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def problem(value: Any, path: Path) -> str | None:
    """Where and why `value` breaks the schema file `path` first, in one
    line; None when it holds."""
    schema = load(path)
    return first_problem(value, schema, schema, "")


def of_type(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return name == "boolean"
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, TYPES[name])


def same(a: Any, b: Any) -> bool:
    """JSON's equality: `true` is not 1, and 1.0 is 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    numbers = of_type(a, "number") and of_type(b, "number")
    return (numbers or type(a) is type(b)) and a == b


def shown(value: Any) -> str:
    """A value as a problem names it: short, on one line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


KIT = Path(__file__).resolve().parents[1]
"""The folder of the kit's schemas (bridge/), which refer to each other by name."""


def by_id(wanted: str) -> dict[str, Any]:
    """The kit's schema whose `$id` is `wanted`; SchemaError when none is."""
    for path in sorted(KIT.glob("*.schema.json")):
        schema = load(path)
        if schema.get("$id") == wanted:
            return schema
    raise SchemaError(f"$ref {wanted}: no schema of the kit has that $id")


def resolve(root: dict[str, Any], ref: str) -> tuple[Any, dict[str, Any]]:
    """The schema a `$ref` points to, and the whole schema it is in: inside
    `root` (`#/$defs/name`), or inside another of the kit's schemas, named
    relative to `root`'s `$id` (`report.schema.json#/$defs/coverage`)."""
    named, _, pointer = ref.partition("#")
    if named:
        if "$id" not in root:
            raise SchemaError(f"$ref {ref}: a schema without $id names no other")
        root = by_id(urljoin(root["$id"], named))
    found: Any = root
    for part in filter(None, pointer.split("/")):
        found = found[part.replace("~1", "/").replace("~0", "~")]
    return found, root


def first_problem(value: Any, schema: Any, root: dict[str, Any], where: str) -> str | None:
    """Where and why `value` breaks `schema` first; None when it does not."""
    if schema is True:
        return None
    if schema is False:
        return f"{where or 'the value'}: not allowed"
    at = At(root, schema, where)
    for keyword, wanted in schema.items():
        if keyword in ANNOTATIONS:
            continue
        checked = KEYWORDS.get(keyword)
        if checked is None:
            raise SchemaError(f"the schema uses {keyword!r}, which this checker does not know")
        problem = checked(value, wanted, at)
        if problem is not None:
            return problem
    return None


def here(at: At, problem: str) -> str:
    return f"{at.where or 'the top'}: {problem}"


def _ref(value: Any, ref: str, at: At) -> str | None:
    target, root = resolve(at.root, ref)
    return first_problem(value, target, root, at.where)


def _type(value: Any, wanted: str | list[str], at: At) -> str | None:
    names = [wanted] if isinstance(wanted, str) else wanted
    if any(of_type(value, name) for name in names):
        return None
    return here(at, f"{shown(value)} is not {' or '.join(A_TYPE.get(n, n) for n in names)}")


def _const(value: Any, wanted: Any, at: At) -> str | None:
    return None if same(value, wanted) else here(at, f"{shown(value)} is not {shown(wanted)}")


def _enum(value: Any, wanted: list[Any], at: At) -> str | None:
    if any(same(value, option) for option in wanted):
        return None
    return here(at, f"{shown(value)} is not one of {', '.join(map(shown, wanted))}")


def _minimum(value: Any, wanted: float, at: At) -> str | None:
    if of_type(value, "number") and value < wanted:
        return here(at, f"{shown(value)} is less than {wanted}")
    return None


def _maximum(value: Any, wanted: float, at: At) -> str | None:
    if of_type(value, "number") and value > wanted:
        return here(at, f"{shown(value)} is more than {wanted}")
    return None


def _min_length(value: Any, wanted: int, at: At) -> str | None:
    if isinstance(value, str) and len(value) < wanted:
        return here(at, f"{shown(value)} is shorter than {wanted}")
    return None


def _min_items(value: Any, wanted: int, at: At) -> str | None:
    if isinstance(value, list) and len(value) < wanted:
        return here(at, f"has {len(value)} items, fewer than {wanted}")
    return None


def _max_items(value: Any, wanted: int, at: At) -> str | None:
    if isinstance(value, list) and len(value) > wanted:
        return here(at, f"has {len(value)} items, more than {wanted}")
    return None


def _pattern(value: Any, wanted: str, at: At) -> str | None:
    if isinstance(value, str) and re.search(wanted, value) is None:
        return here(at, f"{shown(value)} does not match {wanted}")
    return None


def _required(value: Any, wanted: list[str], at: At) -> str | None:
    missing = [name for name in wanted if isinstance(value, dict) and name not in value]
    return here(at, f"no {', '.join(missing)}") if missing else None


def each(parts: Iterable[tuple[Any, Any, str]], at: At) -> str | None:
    """The first problem of the parts of a value: (part, its schema, where
    it is below `at`)."""
    for part, schema, where in parts:
        problem = first_problem(part, schema, at.root, at.inside(where))
        if problem is not None:
            return problem
    return None


def _properties(value: Any, wanted: dict[str, Any], at: At) -> str | None:
    if not isinstance(value, dict):
        return None
    return each(((value[k], s, f".{k}") for k, s in wanted.items() if k in value), at)


def _additional_properties(value: Any, wanted: Any, at: At) -> str | None:
    """The fields that the same schema's `properties` does not name."""
    if not isinstance(value, dict):
        return None
    others = [k for k in value if k not in at.schema.get("properties", {})]
    if wanted is False and others:
        return here(at, f"{shown(others[0])} is not one of its fields")
    return each(((value[k], wanted, f".{k}") for k in others), at)


def _property_names(value: Any, wanted: Any, at: At) -> str | None:
    if not isinstance(value, dict):
        return None
    return each(((k, wanted, " (a field's name)") for k in value), at)


def _items(value: Any, wanted: Any, at: At) -> str | None:
    """The items after those the same schema's `prefixItems` checks."""
    if not isinstance(value, list):
        return None
    start = len(at.schema.get("prefixItems", ()))
    return each(((item, wanted, f"[{k}]") for k, item in enumerate(value) if k >= start), at)


def _prefix_items(value: Any, wanted: list[Any], at: At) -> str | None:
    if not isinstance(value, list):
        return None
    return each(((item, wanted[k], f"[{k}]") for k, item in enumerate(value[: len(wanted)])), at)


def _unique_items(value: Any, wanted: bool, at: At) -> str | None:
    if not wanted or not isinstance(value, list):
        return None
    for k, item in enumerate(value):
        if any(same(item, other) for other in value[:k]):
            return here(at, f"{shown(item)} is in it twice")
    return None


def _one_of(value: Any, wanted: list[Any], at: At) -> str | None:
    problems = [first_problem(value, schema, at.root, at.where) for schema in wanted]
    passed = problems.count(None)
    if passed == 1:
        return None
    if passed == 0:
        # The kind it comes nearest to is the one whose problem is deepest in it.
        return max((p for p in problems if p is not None), key=lambda p: len(p.split(": ")[0]))
    return here(at, f"{shown(value)} is {passed} of the kinds it must be one of")


KEYWORDS: dict[str, Callable[[Any, Any, At], str | None]] = {
    "$ref": _ref,
    "type": _type,
    "const": _const,
    "enum": _enum,
    "minimum": _minimum,
    "maximum": _maximum,
    "minLength": _min_length,
    "minItems": _min_items,
    "maxItems": _max_items,
    "pattern": _pattern,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "propertyNames": _property_names,
    "items": _items,
    "prefixItems": _prefix_items,
    "uniqueItems": _unique_items,
    "oneOf": _one_of,
}
"""Each keyword the kit's report, matrix and diagnosis schemas use, and its check."""
