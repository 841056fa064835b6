"""Causes named by rule slips (issue 40, bridge/checking/slips.py): the
catalogue is drawn from the model's code, a slip is applied and taken back
in place, and an engine with two planted bugs (written as engine bugs, in
tests/bridge/engines/, not from the catalogue) gives one cause per bug,
each named by a slip at the rule the bug breaks and shrunk to a scenario
that shows that bug alone. The engine runs in this process (`impl`, its
classes patched), on a few scenarios where the bugs show."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import jsonschema
import pytest

import bridge
import impl
from bridge import cli
from bridge.checking import slips
from model import render, text
from tests.bridge.helpers import NEVER

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import crlf_two_spaces  # noqa: E402
import merges_first  # noqa: E402

REPORT_SCHEMA = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text())

CRLF = ["random_10", "random_17", "both_kind_utf8"]
"""Scenarios where `\\r\\n` flattened to two spaces shows first (a timed-out
render at a timeout, at the final detail request)."""
MERGES_FIRST = ["chooser_0", "random_02"]
"""Scenarios where merges offered before leaves shows first (the queue at a message)."""
BOTH = ["refused_kind_0"]
"""A scenario whose first diverging answer shows both bugs at once."""


def test_every_comparison_of_the_queue_rules_is_slipped() -> None:
    """Each `<` of model/queue.py outside a loop is read as `<=` by a slip
    at its line, found here by reading the file apart from the catalogue."""
    source = (ROOT / "model" / "queue.py").read_text()
    looped = {
        n.lineno
        for w in ast.walk(ast.parse(source))
        if isinstance(w, ast.While)
        for n in ast.walk(w)
        if hasattr(n, "lineno")
    }
    lines = {
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.Lt)
    } - looped
    assert lines, "queue.py compares with <"
    slipped = {
        s.line for s in slips.catalogue() if s.module == "queue" and s.id.split(".")[2] == "lt-le"
    }
    assert lines <= slipped
    ids = [s.id for s in slips.catalogue()]
    assert len(ids) == len(set(ids))
    ahead = slips.by_id()["slip:queue.leaf_may_start.lt-le.0"]
    assert "AHEAD" in ahead.said() and "SPEC 4" in ahead.said()
    assert source.splitlines()[ahead.line - 1].strip().endswith("< ahead")


def test_a_slip_is_applied_where_the_model_is_used_and_taken_back() -> None:
    (skip,) = [
        s
        for s in slips.catalogue()
        if s.function == "flatten" and s.after.startswith("text.replace('\\r', ' ')")
    ]
    assert render.texts.flatten("a\r\nb") == "a b"
    with slips.applied(skip):
        assert render.texts.flatten("a\r\nb") == "a  b"
    assert text.flatten("a\r\nb") == "a b"


def corpus(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    # Not bounded by the replay's time: what a shrink keeps does not depend on load.
    budget = ["--shrink-seconds", NEVER]
    code = cli.main(["corpus", "--jobs", "1", "--engine", "impl", *budget, *args])
    return code, capsys.readouterr().out


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_two_planted_bugs_are_two_slips_each_shrunk_to_its_bug_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    only = [arg for name in [*CRLF, *MERGES_FIRST, *BOTH] for arg in ("--only", name)]
    regressions, report = tmp_path / "found", tmp_path / "r.json"
    with monkeypatch.context() as patched:
        crlf_two_spaces.plant(patched.setattr)
        merges_first.plant(patched.setattr)
        code, out = corpus(capsys, *only, "--regressions", str(regressions), "--json", str(report))
    assert code == 1, out
    fails = len(CRLF) + len(MERGES_FIRST) + len(BOTH)
    first = out.index(f"verdict before shrinking: {fails} scenarios: {fails} FAIL from 2 causes")
    assert first < out.index("shrunk from"), "the verdict comes before any shrink"
    assert out.splitlines()[-1].startswith(f"{fails} scenarios: {fails} FAIL from 2 causes")
    written = json.loads(report.read_text())
    jsonschema.validate(written, REPORT_SCHEMA)
    by_site = {(c["slip"]["file"], c["slip"]["function"]): c for c in written["causes"]}
    # Each bug is named at the rule it breaks: the flattening of SPEC 3,
    # the queue order of SPEC 4 (the candidates, leaves before merges).
    assert set(by_site) == {("model/text.py", "flatten"), ("model/queue.py", "candidates")}
    crlf, order = by_site["model/text.py", "flatten"], by_site["model/queue.py", "candidates"]
    stems = {c["id"]: sorted(Path(p).stem for p in c["scenarios"]) for c in (crlf, order)}
    assert stems[order["id"]] == sorted(MERGES_FIRST)
    assert set(CRLF) <= set(stems[crlf["id"]]) and set(stems[crlf["id"]]) <= {*CRLF, *BOTH}
    assert re.search(r"your engine agrees with SPEC on all \d+ of these if in `flatten`", out)
    # Each shrunk scenario shows its bug alone: the engine with that bug
    # alone diverges on it, the engine with the other bug alone agrees.
    for plant, own, other in (
        (crlf_two_spaces.plant, crlf["shrunk"], order["shrunk"]),
        (merges_first.plant, order["shrunk"], crlf["shrunk"]),
    ):
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            code, out = corpus(capsys, str(regressions / "scenarios"), "--shrink-tries", "0")
        assert code == 1, out
        assert re.findall(r"FAIL (\S+)\.jsonl", out) == [Path(own).stem], out
        assert Path(other).stem in out


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_fuzz_passes_over_a_known_slip_without_shrinking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("hypothesis")
    listed, found = tmp_path / "causes.txt", tmp_path / "found"
    listed.write_text("slip:queue.candidates.swap-concat.0\n", encoding="utf-8")
    merges_first.plant(monkeypatch.setattr)
    budget = ["--histories", "30", "--max-events", "30", "--shrink-tries", "30", "--seed", "1"]
    code = cli.main(
        ["fuzz", "--engine", "impl", *budget, "--known-causes", str(listed),
         "--regressions", str(found)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    passed = re.search(r"passed over (\d+) diverging histor", out)
    assert passed is not None and int(passed[1]) > 0, out
    assert "shrinking" not in out and not list(found.rglob("*.jsonl")), out
