"""SPEC 10's table is the one statement of the profile options, their values
and defaults (the first value of each row): every place that restates them
(the model, the bridge's profile files, the engine, the answer schema) is
checked against the table as SPEC.md writes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bridge.formats.profile import SPEC, parse, to_json
from impl.profile import CHOICES
from impl.profile import Profile as EngineProfile
from model.profile import TYPES, Profile, from_options, options
from tests.scenarios.spec import profile_defaults, profile_values

ANSWER = Path(__file__).resolve().parent.parent / "bridge" / "answer.schema.json"

DEFAULTS: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    ("model: Profile()", lambda: options(Profile())),
    ("model: from_options({})", lambda: options(from_options({}))),
    ("bridge: SPEC", lambda: to_json(SPEC)),
    ("bridge: a profile file holding {}", lambda: to_json(parse({}, "profile.json"))),
    ("impl: Profile()", lambda: EngineProfile().to_json()),
    ("impl: Profile.from_json({})", lambda: EngineProfile.from_json({}).to_json()),
]
"""Each way the code makes the profile of an engine that declares none,
written back as the protocol writes a profile."""


def strings() -> dict[str, tuple[str, ...]]:
    """SPEC 10's options that are one of a few strings, and those strings,
    the default first."""
    return {
        name: tuple(json.loads(value) for value in values)
        for name, values in profile_values().items()
        if all(value.startswith('"') for value in values)
    }


@pytest.mark.parametrize(("where", "made"), DEFAULTS, ids=[w for w, _ in DEFAULTS])
def test_the_profile_declaring_nothing_is_spec_10_s_defaults(
    where: str, made: Callable[[], dict[str, Any]]
) -> None:
    """Every option, in the table's order, with the table's first value."""
    assert list(made().items()) == list(profile_defaults().items()), where


def test_the_model_and_the_engine_take_spec_10_s_values_default_first() -> None:
    assert list(TYPES) == list(profile_values())
    assert {n: t for n, t in TYPES.items() if isinstance(t, tuple)} == strings()
    assert CHOICES == strings()


def test_the_answer_schema_takes_spec_10_s_values_default_first() -> None:
    declared = json.loads(ANSWER.read_text(encoding="utf-8"))["$defs"]["profile"]["properties"]
    assert list(declared) == list(profile_values())
    assert {n: tuple(p["enum"]) for n, p in declared.items() if "enum" in p} == strings()
    booleans = {n for n, values in profile_values().items() if set(values) == {"true", "false"}}
    assert {n for n, p in declared.items() if p.get("type") == "boolean"} == booleans
