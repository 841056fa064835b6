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
import os
import re
import signal
import sys
import time
import weakref
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

import jsonschema
import pytest

import bridge
import impl
from bridge import cli
from bridge.checking import slips
from model import render, text
from model.constants import Constants
from tests.bridge.helpers import NEVER

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import crlf_two_spaces  # noqa: E402
import free_leaf_bug  # noqa: E402
import merges_first  # noqa: E402

from bridge.runs.corpus import Options, check  # noqa: E402
from impl import planner, view  # noqa: E402

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


def test_a_slip_left_in_the_model_is_taken_out_by_the_next_use() -> None:
    """A slip an alarm kept in the model (its restore cut short) is gone the
    next time the model is used through `applied`, and a late alarm after
    a replay ends no longer raises Stuck."""
    (skip,) = [s for s in slips.catalogue() if s.function == "flatten" and s.kind != "constant"
               and s.after.startswith("text.replace('\\r', ' ')")]  # fmt: skip
    with slips.applied(skip):
        pass
    assert skip.code is not None
    text.flatten.__code__ = skip.code  # as if the restore had been cut short
    assert text.flatten("a\r\nb") == "a  b"
    with slips.applied():
        assert text.flatten("a\r\nb") == "a b"
    assert text.flatten("a\r\nb") == "a b"
    slips.stuck(signal.SIGALRM, None)  # an alarm after the end: no Stuck


def test_a_slipped_replay_is_stuck_by_its_cpu_seconds_not_the_clocks() -> None:
    """A slipped model is cut once it has used the CPU seconds allowed for
    the replay (a quarter of a second past four times the model's own), so
    a loop a slip made endless ends, while waiting on a busy machine,
    which uses no CPU, never makes a slip look stuck."""
    slip = next(s for s in slips.catalogue() if s.function == "flatten")
    with slips.applied(slip, cpu=0.0):
        time.sleep(0.4)
    spun = time.process_time()
    with pytest.raises(slips.Stuck), slips.applied(slip, cpu=0.0):
        while True:  # a loop through the model's code, as a slip's would be
            text.flatten("a")
    # The kernel charges the interval timer by its ticks, not as the process
    # clock counts: the quarter of a second allowed came at 0.187 s of it once.
    assert 0.05 <= time.process_time() - spun < 2
    assert slips.allowed(10, 1.0) == 4.25 and slips.allowed(300, None) == 4.0


def test_an_alarm_while_the_model_is_restored_is_let_pass() -> None:
    """An alarm that comes after the slipped replay, while `applied` puts
    the model back, raises nothing there (the restore would be skipped and
    the slip left in the model), nor outside the model's code and the
    runner's (a weakref's callback the collector runs, or a library's,
    cannot raise: the Stuck would be printed and lost; the alarm comes
    again 50 ms later); one in the model's code is Stuck."""
    slip = next(s for s in slips.catalogue() if s.function == "flatten")
    library = iter(weakref.WeakSet()).gi_frame  # type: ignore[attr-defined]
    seen: list[FrameType] = []

    class Seen(str):
        def replace(self, *args: Any) -> str:  # type: ignore[override]
            seen.append(sys._getframe(1))
            return str.replace(self, *args)

    text.flatten(Seen("a\r\nb"))
    model = seen[0]
    using = slips.applied.__wrapped__(slip, cpu=0.0)  # type: ignore[attr-defined]
    next(using)
    try:
        assert slips.ARMED[0] and library.f_code.co_filename.endswith("_weakrefset.py")
        assert model.f_code.co_filename.endswith(os.path.join("model", "text.py"))
        slips.stuck(signal.SIGVTALRM, using.gi_frame)
        slips.stuck(signal.SIGVTALRM, library)
        slips.stuck(signal.SIGVTALRM, sys._getframe())  # this test's code
        with pytest.raises(slips.Stuck):
            slips.stuck(signal.SIGVTALRM, model)
    finally:
        using.close()
    assert not slips.ARMED[0] and text.flatten("a\r\nb") == "a b"


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


def test_a_constant_slip_shifts_the_constant_in_every_rule_and_is_taken_back() -> None:
    """AHEAD + 1 as a whole: the model's constants, made while it is applied,
    carry AHEAD + 1 (so both rules that read AHEAD see it), and no others."""
    slip = slips.by_id()["slip:constants.ahead.plus1.0"]
    assert slip.kind == "constant" and {m for m, _ in slip.sites} == {"queue"}
    assert "AHEAD" in slip.said() and "`AHEAD + 1`" in slip.said() and "SPEC 4" in slip.said()
    with slips.applied(slip):
        assert Constants(ahead=3).ahead == 4 and Constants(jobs=3).jobs == 3
    assert Constants(ahead=3).ahead == 3
    named = {s.id.split(".")[1] for s in slips.catalogue() if s.kind == "constant"}
    assert {"ahead", "jobs", "node", "tries", "failures", "ceiling", "floor"} <= named


AHEAD_SITES = {
    "refused_retry_waits_0": "queue@message",
    "refused_ahead_bound_0": "queue@message",
    "refused_ahead_bound_2": "refused.ahead_bound@start",
}
"""Scenarios where a leaf offered and taken with AHEAD unbuilt leaves before
it shows: in the queue SPEC 4 offers (`candidates`, the slice of AHEAD
leaves) and as a start SPEC 4.1 refuses (`leaf_may_start`, `< ahead`): one
bug stated at the model's two sites of AHEAD."""


def plant_ahead_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """ahead_bug.py's bug (an engine's AHEAD one more), in this process."""
    init = planner.Planner.__init__

    def one_further(self: planner.Planner, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        self.queue.ahead += 1

    monkeypatch.setattr(planner.Planner, "__init__", one_further)


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_one_constant_off_by_one_at_two_sites_is_one_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plant_ahead_bug(monkeypatch)
    only = [arg for name in AHEAD_SITES for arg in ("--only", name)]
    report = tmp_path / "r.json"
    code, out = corpus(capsys, *only, "--regressions", str(tmp_path / "r"), "--json", str(report))
    assert code == 1, out
    written = json.loads(report.read_text())
    for shown in written["scenarios"]:
        first = shown["divergence"]
        part = f"refused.{first['expected']}" if first["field"] == "refused" else first["field"]
        where = AHEAD_SITES[Path(shown["scenario"]).stem]
        assert f"{part}@{first['event']['event']}" == where, shown
    (cause,) = written["causes"]
    assert cause["id"] == "slip:constants.ahead.plus1.0", out
    assert sorted(Path(p).stem for p in cause["scenarios"]) == sorted(AHEAD_SITES)
    n = len(AHEAD_SITES)
    assert f"verdict before shrinking: {n} scenarios: {n} FAIL from 1 cause" in out
    assert "is read as `AHEAD + 1` in every rule that reads it" in out
    assert "it shows this bug alone" in out


def test_a_slip_that_mimics_a_bug_at_its_divergence_is_refuted_past_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A free leaf counted as a placeholder during its batch (free_leaf_bug.py)
    first shows in random_07 as a batch the view's pairs read backwards
    (`is_pair`, `<` as `>`) would make too; past the divergence the engine
    gives SPEC's views where that slip's model does not, so it explains
    nothing: judged on the prefix alone, it would."""
    if impl.COMPILED:
        pytest.skip("a patch misses the C build: test_plain_python.py")
    for where, name in ((view.View, "append"), (planner.Planner, "message")):
        monkeypatch.setattr(where, name, getattr(where, name))  # put back after
    free_leaf_bug.plant()
    found = check(ROOT / "scenarios" / "corpus" / "random_07.jsonl", Options(engine="impl"))
    failure = found.failure
    assert found.status == "FAIL" and failure is not None and failure.past, found.reason
    pairs = slips.by_id()["slip:view.is_pair.lt-gt.0"]
    assert not failure.explained_by(pairs)
    refuting = [
        k
        for k, (_, expected, engine) in enumerate(failure.past)
        if not failure.differs(expected, engine)
    ]
    assert refuting, "the engine gives SPEC's answer somewhere past the divergence"
    prefix = replace(failure, past=[], longer=None, ran=None)
    assert prefix.explained_by(pairs)
