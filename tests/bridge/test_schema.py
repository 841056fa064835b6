"""bridge/formats/schema.py, the runner's own JSON Schema checker (the runner
has no dependencies), agrees with `jsonschema` on the kit's report schema:
both take the reports runs write (a passing run, a bad scenario, a
divergence), and both refuse each of a list of damaged ones; its problem
names the place. A keyword it does not know is refused, not skipped."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bridge import cli
from bridge.formats.schema import SchemaError, problem

ROOT = Path(__file__).resolve().parents[2]
REPORT_PATH = ROOT / "bridge" / "report.schema.json"
REPORT = json.loads(REPORT_PATH.read_text())
jsonschema.Draft202012Validator.check_schema(REPORT)
JSONSCHEMA = jsonschema.Draft202012Validator(REPORT)
"""`jsonschema` on the report schema, checked once (`jsonschema.validate`
checks the schema again at every call)."""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The JSON report of the model on a passing scenario and a bad one."""
    folder = tmp_path_factory.mktemp("schema")
    (folder / "in").mkdir()
    (folder / "in" / "bad.jsonl").write_text("{not json\n")
    (folder / "in" / "empty.jsonl").write_bytes(
        (ROOT / "scenarios" / "corpus" / "empty_chat.jsonl").read_bytes()
    )
    out = folder / "report.json"
    args = ["corpus", str(folder / "in"), "--engine", "model", "--jobs", "1", "--json", str(out)]
    assert cli.main(args) == 2  # one job: in this process, no pool of workers
    return json.loads(out.read_text())


DIVERGENCE = {
    "position": 3,
    "file_line": 5,
    "event": {"event": "wait"},
    "field": "size",
    "spec_section": "SPEC 3",
    "expected": 10,
    "found": 11,
    "difference": "expected 10, found 11",
    "later": 0,
}

Change = Callable[[dict[str, Any]], None]


def case(report: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in report["scenarios"] if c["coverage"] is not None)


TAKEN: list[Change] = [
    lambda r: None,
    lambda r: case(r).update(status="FAIL", divergence=DIVERGENCE, page="x-1.html"),
    lambda r: case(r).update(divergence={**DIVERGENCE, "position": None, "spec_section": None}),
    lambda r: r.update(corpus_version=None, profile=None, engine_name=None),
    lambda r: case(r)["coverage"].update(fraction=1.0, events=0.0),
]
"""Reports a run may write."""

REFUSED: list[tuple[Change, str]] = [
    (lambda r: case(r).update(status="WEIRD"), "scenarios[1].status"),
    (lambda r: r.update(extra=1), "the top"),
    (lambda r: r.pop("coverage"), "coverage"),
    (lambda r: case(r)["coverage"].update(fraction=2), "scenarios[1].coverage"),
    (lambda r: case(r).update(seconds=-1), "scenarios[1].seconds"),
    (lambda r: case(r).update(page="javascript:alert(1)"), "scenarios[1].page"),
    (lambda r: case(r).update(page="../x.html"), "scenarios[1].page"),
    (lambda r: case(r).update(answers=True), "scenarios[1].answers"),
    (lambda r: case(r).update(answers=1.5), "scenarios[1].answers"),
    (lambda r: case(r).update(coverage="x"), "scenarios[1].coverage"),
    (lambda r: case(r).update(divergence={**DIVERGENCE, "file_line": 1}), "divergence"),
    (lambda r: case(r).update(divergence={"field": "size"}), "scenarios[1].divergence"),
    (lambda r: r.update(counts={"ok": 0}), "counts.ok"),
    (lambda r: r.update(counts={"WEIRD": 1}), "counts"),
    (lambda r: r.update(format="optchat-spec-report/2"), "format"),
    (lambda r: r.update(runner_version=""), "runner_version"),
    (lambda r: r["coverage"]["not_implemented"].append({"capability": "zoom"}), "not_implemented"),
    (lambda r: r.update(scenarios={}), "scenarios"),
]
"""Reports no run writes, and where the problem is (or the place around it)."""


@pytest.mark.parametrize("change", TAKEN)
def test_both_take_what_a_run_writes(change: Change, written: dict[str, Any]) -> None:
    report = copy.deepcopy(written)
    assert {c["status"] for c in report["scenarios"]} == {"ok", "BAD"}
    change(report)
    JSONSCHEMA.validate(report)
    assert problem(report, REPORT_PATH) is None


@pytest.mark.parametrize(("change", "where"), REFUSED)
def test_both_refuse_a_damaged_report_and_it_names_where(
    change: Change, where: str, written: dict[str, Any]
) -> None:
    report = copy.deepcopy(written)
    change(report)
    with pytest.raises(jsonschema.ValidationError):
        JSONSCHEMA.validate(report)
    said = problem(report, REPORT_PATH)
    assert said is not None and where in said and "\n" not in said, said


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        ([], {"type": "array", "minItems": 1}),
        ([1, 2], {"type": "array", "maxItems": 1}),
        (1, {"const": True}),
        (True, {"enum": [1]}),
        ({"a": 1}, {"propertyNames": {"pattern": "^b"}}),
        (2, {"oneOf": [{"type": "integer"}, {"minimum": 1}]}),
    ],
)
def test_both_refuse_what_the_other_schemas_keywords_refuse(
    value: Any, schema: Any, tmp_path: Path
) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(value, schema)
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    assert problem(value, path) is not None


def test_a_keyword_it_does_not_know_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "array", "unevaluatedItems": False}))
    with pytest.raises(SchemaError, match="unevaluatedItems"):
        problem([1, 1], path)
