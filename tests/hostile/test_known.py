"""A --known-failures file read as an editor writes it, and refused where
it contradicts itself (issue 36, item 9): a UTF-8 byte-order mark is no
part of the first name; one name listed with two outcomes is one line of
error naming both lines, exit 2; a list of many names the run did not run
is said in a few lines, not one per name."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.formats.usage import UsageError, load_known
from tests.hostile.processes import Hostile, engine
from tests.hostile.test_engines import scenario_file


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path: Path) -> None:
    path = tmp_path / "known.txt"
    path.write_text("\ufeffa.jsonl fault\nb skip\n", encoding="utf-8")
    assert load_known(path) == {"a.jsonl": "FAULT", "b": "SKIPPED"}


def test_a_name_listed_twice_alike_is_taken_once(tmp_path: Path) -> None:
    path = tmp_path / "known.txt"
    path.write_text("a fail\n# again\na\n", encoding="utf-8")
    assert load_known(path) == {"a": "FAIL"}


def test_a_name_listed_with_two_outcomes_is_refused(run: Hostile) -> None:
    path = run.folder / "known.txt"
    path.write_text("a.jsonl fail\nother\n\na.jsonl skip  # or is it?\n", encoding="utf-8")
    with pytest.raises(UsageError) as refused:
        load_known(path)
    said = str(refused.value)
    assert f"--known-failures {path}:4: " in said and "a.jsonl" in said
    assert "line 1" in said and "fail" in said and "skip" in said
    result = run.main(
        "corpus", scenario_file(run.folder, "a.jsonl"), "--engine", "model",
        "--known-failures", str(path),
    )  # fmt: skip
    assert result.code == 2 and result.out == ""
    (line,) = result.err.splitlines()
    assert line == f"optchat-spec corpus: {said}"


def test_many_names_not_run_are_said_in_a_few_lines(run: Hostile) -> None:
    path = run.folder / "known.txt"
    path.write_text("".join(f"missing_{k:05}\n" for k in range(20_000)), encoding="utf-8")
    result = run.main(
        "corpus", scenario_file(run.folder, "a.jsonl"), "--engine", "model",
        "--known-failures", str(path),
    )  # fmt: skip
    assert result.code == 0, (result.out, result.err)
    notes = [line for line in result.out.splitlines() if line.startswith("note: ")]
    assert len(notes) <= 11, notes[:3]
    assert "note: missing_00000 is listed as a known failure but was not run" in notes
    assert notes[-1] == f"note: and 19,990 more names of {path} were not run"


def test_a_known_fault_at_the_first_event_compares_nothing(run: Hostile) -> None:
    """Issue 42, item 3: an engine that dies at the first event, listed as a
    known fault, compared nothing: the event it died on never had its
    answer read. NOTHING COMPARED, exit 1 (it was green, `compared 0.0083`)."""
    path = run.folder / "known.txt"
    path.write_text("six.jsonl fault\n", encoding="utf-8")
    result = run.main(
        "corpus", scenario_file(run.folder), "--engine", engine("crash", 0),
        "--known-failures", str(path), "--jobs", "1",
    )  # fmt: skip
    assert "Traceback" not in result.out + result.err
    assert result.code == 1, (result.out, result.err)
    assert "NOTHING COMPARED" in result.out.splitlines()[-1], result.out
