"""Issue 42, item 8, the small ones: both list files read alike, echoed
values cut, no bidirectional override on a page, the mismatch line without
a stray quote, the runner's schema checker on a diagnosis report, and two
runs into one --report folder. (An interrupted diagnose and fuzz saying no
finished run's words: tests/hostile/test_signals.py.)"""

from __future__ import annotations

import copy
import fcntl
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

import bridge.cli as cli
from bridge.checking.causes import parse, read_known
from bridge.formats import limits, schema
from bridge.formats.usage import UsageError, load_known
from bridge.outputs.markup import escape, script_json
from bridge.wire.engine import EngineFault, limits_of
from tests.hostile.processes import Hostile
from tests.hostile.test_engines import scenario_file

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_both_list_files_take_a_byte_order_mark_and_split_at_line_feeds_only(
    tmp_path: Path,
) -> None:
    causes, failures = tmp_path / "causes.txt", tmp_path / "failures.txt"
    causes.write_text("\ufeffrender@message\n# why\nsize@end\n", encoding="utf-8")
    assert read_known(causes) == [parse("render@message"), parse("size@end")]
    failures.write_text("\ufeffa.jsonl fault\r\nb\n", encoding="utf-8")
    assert load_known(failures) == {"a.jsonl": "FAULT", "b": "FAIL"}
    # U+2028 is no line break in either: not two ids, not two names.
    causes.write_text("render@message\u2028size@end\n", encoding="utf-8")
    with pytest.raises(UsageError, match=":1: one cause id a line, not 2 words"):
        read_known(causes)
    failures.write_text("a.jsonl\u2028b.jsonl\n", encoding="utf-8")
    with pytest.raises(UsageError, match=":1: not `NAME`"):
        load_known(failures)


def test_echoed_values_are_cut(run: Hostile) -> None:
    """A 1 MB name in --known-failures that was not run, and a scenario
    event whose name is 100,000 characters: each said in a line of bounded
    length."""
    path = run.folder / "known.txt"
    path.write_text("n" * 1_000_000 + "\n", encoding="utf-8")
    result = run.main(
        "corpus", scenario_file(run.folder, "a.jsonl"), "--engine", "model",
        "--known-failures", str(path),
    )  # fmt: skip
    assert result.code == 0, result.err
    (note,) = [line for line in result.out.splitlines() if line.startswith("note: ")]
    assert len(note) < 400 and "1,000,000 characters" in note, note[:400]
    bad = run.folder / "bad.jsonl"
    header = json.loads(Path(scenario_file(run.folder)).read_text().splitlines()[0])
    end = {"event": "y" * 100_000}
    bad.write_text(json.dumps(header) + "\n" + json.dumps(end) + "\n")
    result = run.main("compare", str(bad), "--engine", "model")
    assert result.code == 2, result.err
    (line,) = result.err.splitlines()
    assert line.startswith("BAD INPUT: ") and len(line) < 400 + len(str(bad)), line[:500]
    assert "(cut from " in line, line


def test_no_bidirectional_control_reaches_a_page(run: Hostile) -> None:
    """An engine's U+202E (in its name) reversed the rest of its cell: on a
    page, as HTML text or in the page's data, it is its escape."""
    said = f"x{BIDI}y"
    assert not set(escape(said)) & set(BIDI) and "\\u202e" in escape(said)
    data = json.loads(script_json({"engine": said}))
    assert not set(data["engine"]) & set(BIDI) and "\\u202e" in data["engine"]
    report = run.folder / "r.json"
    code = run.main("corpus", "--only", "empty_chat", "--engine", "model", "--json", str(report))
    assert code.code == 0, code.err
    changed = json.loads(report.read_text())
    changed["engine_name"] = f"e{BIDI}gnp.exe"
    report.write_text(json.dumps(changed))
    page = run.folder / "m.html"
    assert run.main("matrix", str(report), "-o", str(page)).code == 0
    assert not set(page.read_text(encoding="utf-8")) & set(BIDI)


def test_a_mismatch_of_constants_is_said_without_a_stray_quote() -> None:
    declared = limits.parse({"node": {"min": 8}}, "it")
    with pytest.raises(EngineFault) as fault:
        limits_of(declared, limits.NONE, "e")
    assert "than --constants gives: NODE >= 8 / none" in str(fault.value), fault.value


@pytest.fixture(scope="module")
def diagnosis(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("diagnosis") / "d.json"
    argv = ["diagnose", "--only", "empty_chat", "--engine", "model", "--jobs", "1"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def validator() -> jsonschema.Draft202012Validator:
    """`jsonschema` with the kit's schemas, found by their $id."""
    kit = [json.loads(p.read_text()) for p in schema.KIT.glob("*.schema.json")]
    registry: Registry = Registry().with_resources(
        (found["$id"], Resource.from_contents(found)) for found in kit
    )
    rules = json.loads((schema.KIT / "diagnosis.schema.json").read_text())
    return jsonschema.Draft202012Validator(rules, registry=registry)


@pytest.mark.parametrize(
    ("where", "to"),
    [
        ((), None),
        (("coverage", "events"), "many"),
        (("min_compared",), 2),
        (("runner_version",), ""),
        (("verdict", "exit_code"), 3),
    ],
)
def test_the_schema_checker_checks_a_diagnosis_report(
    diagnosis: dict[str, Any], where: tuple[str, ...], to: Any
) -> None:
    """Its `$ref`s into report.schema.json were refused: it agrees with
    `jsonschema` on the report a run writes and on damaged ones."""
    value = copy.deepcopy(diagnosis)
    if where:
        holder = value
        for step in where[:-1]:
            holder = holder[step]
        holder[where[-1]] = to
    found = schema.problem(value, schema.KIT / "diagnosis.schema.json")
    assert (found is None) == validator().is_valid(value) == (not where), found
    if where:
        assert found is not None and found.startswith(".".join(where)), found


def test_two_runs_into_one_report_folder_the_second_is_refused(run: Hostile) -> None:
    """Another run holds the folder (its lock taken here): refused in one
    line before it runs, exit 2; once let go, the run writes there."""
    folder = run.folder / "report"
    folder.mkdir()
    argv = ["corpus", "--only", "empty_chat", "--engine", "model", "--report", str(folder)]
    other = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = run.main(*argv)
    finally:
        os.close(other)
    assert result.code == 2 and result.out == "", result.out
    (line,) = result.err.splitlines()
    assert "another run is writing its reports there" in line, line
    assert run.main(*argv).code == 0
    assert (folder / "index.html").exists()
