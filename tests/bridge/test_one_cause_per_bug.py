"""One cause per bug (issue 40): an engine with three planted bugs, each
seen in several ways, gives three causes, each named by the rule slip of
the model that explains it and shrunk to its bug alone. The bugs: a free
leaf that waits for a call (free_leaf_queued.py; it shows in the views
and the queue at messages, and is not the option `free_leaves: queued`,
under which a queued free leaf is built with no call), ready merges
offered before unbuilt leaves (merges_first.py; the queue at messages and
ends) and a lone `\\r` left unflattened (lone_cr.py; timed-out renders).
The engine runs in this process (`impl`, patched), on a few small
scenarios where each bug shows first; which bug each scenario shows is
read from the engine with that bug alone, apart from the grouping. Beside
a bug no slip explains (AHEAD miscounted), the free leaf's FAILs are still
one cause, and one where both show at one answer is the other bug's.
Beside a zoom's halves newest first, which shows only after the free
leaf's bug in the corpus, the zoom's is a cause of its own, its FAIL
counted once (planted.py in process, `with_bug`); beside a free leaf
counted as a placeholder, which it never lets show, the one cause."""

from __future__ import annotations

import json
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import bridge
import impl
from bridge import cli
from bridge.checking import slips
from bridge.checking.causes import Cause, Replays, Signature, signature_of_json
from bridge.checking.shrink import plain_texts
from bridge.checking.verdict import Verdict
from bridge.formats.profile import SPEC
from bridge.runs import triage
from bridge.runs.corpus import Options, check
from model.constants import Constants
from scenarios.format import Scenario, stream, write
from scenarios.strategies import constants_dict
from tests.bridge.helpers import NEVER, in_process, with_bug

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text())
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import ahead_running  # noqa: E402
import free_leaf_queued  # noqa: E402
import lone_cr  # noqa: E402
import merges_first  # noqa: E402

Plant = Callable[[Callable[[object, str, object], None]], None]

BUGS: dict[str, tuple[Plant, tuple[str, str], dict[str, str]]] = {
    "queued_leaf": (
        free_leaf_queued.plant,
        ("model/machine.py", "_message"),
        {
            "chooser_0": "size@message",
            "both_need_first_merge_needs_halves": "queue@message",
            "refused_settle_needs_summaries_2": "queue@message",
        },
    ),
    "merges_first": (
        merges_first.plant,
        ("model/queue.py", "candidates"),
        {"random_01": "queue@message", "refused_one_wait_0": "queue@end"},
    ),
    "lone_cr": (
        lone_cr.plant,
        ("model/text.py", "flatten"),
        {
            "random_10": "render_timed_out_crc@timeout",
            "refused_settle_needs_summaries_1": "render_timed_out_crc@timeout",
        },
    ),
}
"""Each bug: how to plant it, the model's function its slip changes, and
the scenarios where it shows first beside the others, each with the field
and kind of event where its first divergence is."""


def first_divergence(name: str) -> str | None:
    """`FIELD@KIND` of a corpus scenario's first divergence on the engine as it is now."""
    verdict = check(ROOT / "scenarios" / "corpus" / f"{name}.jsonl", Options(engine="impl"))
    if verdict.divergence is None:
        return None
    return f"{verdict.divergence['field']}@{(verdict.divergence['event'] or {})['event']}"


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_three_bugs_each_seen_in_several_ways_are_three_named_causes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Which bug each scenario shows, from the engine with that bug alone.
    for plant, _, shows in BUGS.values():
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            assert {name: first_divergence(name) for name in shows} == shows
    names = [name for _, _, shows in BUGS.values() for name in shows]
    report, found = tmp_path / "r.json", tmp_path / "found"
    args = ["corpus", "--jobs", "1", "--engine", "impl", "--shrink-seconds", NEVER]
    args += [arg for name in names for arg in ("--only", name)]
    with monkeypatch.context() as patched:
        for plant, _, _ in BUGS.values():
            plant(patched.setattr)
        code = cli.main([*args, "--regressions", str(found), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    n = len(names)
    assert f"verdict before shrinking: {n} scenarios: {n} FAIL from 3 causes" in out, out
    assert out.splitlines()[-1].startswith(f"{n} scenarios: {n} FAIL from 3 causes"), out
    causes = json.loads(report.read_text())["causes"]
    by_site = {(c["slip"]["file"], c["slip"]["function"]): c for c in causes if c["slip"]}
    assert len(by_site) == 3, out
    for bug, (_, site, shows) in BUGS.items():
        cause = by_site[site]
        assert sorted(Path(p).stem for p in cause["scenarios"]) == sorted(shows), bug
        assert f"your engine agrees with SPEC on all {len(shows)} of these if in `{site[1]}`" in out
    # The free leaf's slip is the condition that builds it at its message.
    assert by_site["model/machine.py", "_message"]["slip"]["before"] == (
        "state.profile.free_leaves == 'at_once'"
    )
    # Each shrunk scenario shows its bug alone: the engine with that bug
    # alone diverges on it, and with either other bug alone agrees.
    for bug, (plant, site, _) in BUGS.items():
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            code = cli.main(["corpus", "--jobs", "1", "--engine", "impl", "--shrink-tries", "0",
                             str(found / "scenarios")])  # fmt: skip
        said = capsys.readouterr().out
        assert code == 1, said
        assert re.findall(r"FAIL (\S+)\.jsonl", said) == [Path(by_site[site]["shrunk"]).stem], bug


AHEAD = {
    "refused_retry_waits_0": "queue@start",
    "refused_zoom_2": "queue@message",
    "refused_need_first_1": "queue@fail",
}
"""Scenarios where a running leaf not counted toward AHEAD (ahead_running.py,
no slip explains it) shows first beside a free leaf queued."""
BOTH = "refused_utf8_0"
"""A scenario whose first diverging answer shows both bugs: the size is
the free leaf's, the queue the running leaf's."""


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: test_plain_python.py")
def test_a_fail_of_two_bugs_at_one_answer_joins_the_other_bugs_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip) and AHEAD miscounted (no slip
    explains it) are two causes; the FAIL where both show at one answer is
    the second's, by what the free leaf's slip leaves of it."""
    free_leaf_queued.plant(monkeypatch.setattr)
    queued = check(ROOT / "scenarios" / "corpus" / f"{BOTH}.jsonl", Options(engine="impl"))
    with monkeypatch.context() as patched:
        ahead_running.plant(patched.setattr)
        assert {name: first_divergence(name) for name in AHEAD} == AHEAD
        both = check(ROOT / "scenarios" / "corpus" / f"{BOTH}.jsonl", Options(engine="impl"))
        assert queued.failure is not None and both.failure is not None
        # The same answer diverges first, in the size; the queue there is AHEAD's.
        assert queued.failure.index == both.failure.index
        assert queued.failure.answer["size"] == both.failure.answer["size"]
        assert queued.failure.answer["queue"] != both.failure.answer["queue"]
        names = [*AHEAD, BOTH, "chooser_0"]
        args = ["corpus", "--jobs", "1", "--engine", "impl", "--shrink-seconds", NEVER]
        args += ["--shrink-tries", "150", *(a for name in names for a in ("--only", name))]
        code = cli.main([*args, "--regressions", str(tmp_path), "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 1, out
    n = len(names)
    verdict = f"{n} scenarios: {n} FAIL from 2 causes (1 showing two causes' bugs, counted once)"
    assert f"verdict before shrinking: {verdict}" in out, out
    assert out.splitlines()[-1].startswith(verdict), out
    causes = json.loads((tmp_path / "r.json").read_text())["causes"]
    by_slip = {c["slip"] is not None: c for c in causes}
    assert by_slip[True]["slip"]["function"] == "_message"
    assert [Path(p).stem for p in by_slip[True]["scenarios"]] == ["chooser_0"]
    assert [Path(p).stem for p in by_slip[True]["after"]] == [BOTH]  # its bug shows there too
    ahead = by_slip[False]
    assert ahead["part"] == "queue" and "no rule slip explains it" in ahead["said"]
    assert sorted(Path(p).stem for p in ahead["scenarios"]) == sorted([*AHEAD, BOTH])
    # Its shrunk scenario shows AHEAD's bug alone: the free leaf's engine agrees there.
    code = cli.main(["corpus", "--jobs", "1", "--engine", "impl", "--shrink-tries", "0",
                     ahead["shrunk"]])  # fmt: skip
    assert code == 0, capsys.readouterr().out


PLANTED = f"{sys.executable} {ROOT / 'tests' / 'bridge' / 'engines' / 'planted.py'}"
"""planted.py's engine, run in this process (`with_bug`) with the plants its spec names."""
LATER = "zoom_1"
"""A scenario where a free leaf queued shows first, at a message, and a
zoom's halves newest first (no slip explains it) only after it, at a zoom:
the corpus has no scenario where the zoom's bug shows first beside it."""


def planted_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """`PLANTED NAME ...` runs in this process (`with_bug`)."""
    in_process(
        monkeypatch,
        lambda spec: (
            spec.startswith(PLANTED)
            and with_bug(spec, "planted", *spec.removeprefix(PLANTED).split())
            or None
        ),
    )


def field_at(scenario: Path, *plants: str) -> str | None:
    """`FIELD@KIND` of a scenario's first divergence on planted.py with `plants`."""
    verdict = check(scenario, Options(engine=" ".join([PLANTED, *plants])))
    if verdict.divergence is None:
        return None
    return f"{verdict.divergence['field']}@{(verdict.divergence['event'] or {})['event']}"


def planted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plants: str, names: list[str]
) -> tuple[str, list[dict[str, Any]]]:
    """`corpus` on planted.py with `plants` (in this process), on the corpus
    scenarios `names`, shrinking to its end: what it printed, and its causes
    as the JSON report gives them; it must end red."""
    report = tmp_path / "r.json"
    args = ["corpus", "--jobs", "1", "--engine", f"{PLANTED} {plants}"]
    args += ["--shrink-seconds", NEVER, *(a for name in names for a in ("--only", name))]
    code = cli.main([*args, "--regressions", str(tmp_path / "found"), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    return out, json.loads(report.read_text())["causes"]


def ticked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The progress lines of triage.py's work (`Ticker`), each said once as
    the work begins, whatever it lasts (no thread): what they say."""
    said: list[str] = []

    class Recorder:
        def __init__(self, line: Callable[[float], str], quiet: bool) -> None:
            self.line, self.quiet = line, quiet

        def __enter__(self) -> None:
            if not self.quiet:
                said.append(self.line(0.0))

        def __exit__(self, *_: object) -> None:
            pass

    monkeypatch.setattr(triage, "Ticker", Recorder)
    return said


def test_a_bug_that_shows_only_after_a_slips_is_a_cause_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip) and a zoom newest first (no
    slip): the zoom's FAIL is counted once, in the free leaf's cause where
    it first diverges, and listed in a cause of the zoom's, whose shrunk
    scenario shows the zoom's bug alone."""
    planted_engine(monkeypatch)
    later = ROOT / "scenarios" / "corpus" / f"{LATER}.jsonl"
    # Each bug alone, apart from the grouping: the free leaf shows first, the zoom later.
    assert field_at(later, "queued_leaf") == "size@message"
    assert field_at(later, "zoom") == "zoom@zoom"
    assert field_at(later, "queued_leaf", "zoom") == "size@message"
    names = ["chooser_0", LATER]
    report, found = tmp_path / "r.json", tmp_path / "found"
    args = ["corpus", "--jobs", "1", "--engine", f"{PLANTED} queued_leaf zoom"]
    args += ["--shrink-seconds", NEVER, *(a for name in names for a in ("--only", name))]
    ticks = ticked(monkeypatch)
    code = cli.main([*args, "--regressions", str(found), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    # Each shrink of a cause says, while it goes on, which cause it shrinks.
    assert any(re.match(r"  \.\.\. causes: shrinking slip:\S+ \(", t) for t in ticks), ticks
    assert any(re.match(r"  \.\.\. causes: shrinking zoom@zoom\S* \(", t) for t in ticks), ticks
    verdict = "2 scenarios: 2 FAIL from 2 causes (1 showing two causes' bugs, counted once)"
    assert f"verdict before shrinking: {verdict}" in out, out
    assert out.splitlines()[-1].startswith(verdict), out
    written = json.loads(report.read_text())
    jsonschema.validate(written, REPORT_SCHEMA)
    named, zoom = sorted(written["causes"], key=lambda c: c["slip"] is None)
    assert named["slip"]["function"] == "_message" and zoom["slip"] is None
    assert sorted(Path(p).stem for p in named["scenarios"]) == sorted(names)
    # Counted once, where it first diverges; listed in the zoom's cause too.
    assert named["after"] == [] and zoom["scenarios"] == []
    assert [Path(p).stem for p in zoom["after"]] == [LATER]
    assert {Path(s["path"]).stem: s["cause"] for s in written["scenarios"]} == dict.fromkeys(
        names, named["id"]
    )
    assert zoom["id"].startswith("zoom@zoom:") and zoom["kind"] == "zoom"
    assert f"{zoom['id']}: no FAIL of its own; it shows in 1 FAIL of other causes" in out
    assert "in 1 of these another bug shows after this one's: cause 2" in out
    # Each shrunk scenario shows its bug alone: it fails on the engine with
    # that plant alone and agrees with the engine with the other alone.
    for cause, alone, other in ((named, "queued_leaf", "zoom"), (zoom, "zoom", "queued_leaf")):
        shrunk = Path(cause["shrunk"])
        assert field_at(shrunk, alone) is not None, cause["id"]
        assert field_at(shrunk, other) is None, cause["id"]


HIDDEN = ["refused_built_once_1", "both_jobs_bound_retry_waits"]
"""Scenarios a free leaf counted as a placeholder during its batch
(free_leaf_bug.py) fails, alone."""


def test_a_bug_the_other_never_lets_show_is_not_a_cause(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued beside a free leaf counted as a placeholder: the
    second acts on a leaf built at its message, which the first never
    builds, so the engine with both answers as the model with the first's
    slip on every answer, even where the second alone fails: one cause, and
    no second one made up of where the first's model parts from SPEC's."""
    planted_engine(monkeypatch)
    slip = slips.named("slip:machine._message.eq-ne.0")
    both = with_bug("both", "planted", "queued_leaf", "free_leaf")
    for name in HIDDEN:
        path = ROOT / "scenarios" / "corpus" / f"{name}.jsonl"
        assert field_at(path, "free_leaf") is not None, name
        assert slips.against(both, stream(path), slip, SPEC, ()) is None, name
    args = ["corpus", "--jobs", "1", "--engine", f"{PLANTED} queued_leaf free_leaf"]
    args += ["--shrink-tries", "0", *(a for name in HIDDEN for a in ("--only", name))]
    code = cli.main(args)
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.splitlines()[-1].startswith("2 scenarios: 2 FAIL from 1 cause;"), out
    assert f"{slip.id}: 2 scenarios" in out, out


def test_a_second_bug_beside_a_third_at_one_answer_is_the_named_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four plants: in random_23 the queue order slip shows first; past it,
    at one answer, the free leaf queued shows in the size and a running
    leaf not counted toward AHEAD in the queue waiting. The second bug is the free
    leaf's, named by its slip: the model with both slips gives the engine's
    size there, though not its queue."""
    planted_engine(monkeypatch)
    spec = f"{PLANTED} queued_leaf crlf ahead_running merges_first"
    failure = check(ROOT / "scenarios" / "corpus" / "random_23.jsonl", Options(engine=spec)).failure
    assert failure is not None
    order = slips.named("slip:queue.candidates.swap-concat.0")
    queued = slips.named("slip:machine._message.eq-ne.0")
    parting = failure.parting(order)
    assert parting is not None and parting["field"] == "size", parting
    assert failure.shown_with(order, queued)
    assert not failure.shown_with(order, slips.named("slip:text.flatten.skip-replace.2"))


def test_two_bugs_at_one_answer_of_an_engine_naming_no_rules() -> None:
    """An engine that names no rule of SPEC 4.1 refuses a second start that
    SPEC allows (as the model does with a slip of `check_start`, by
    `node_exists`) and shows a wrong queue there: a refusal compared as a
    fact, the slip gives the engine's, and what it leaves is the queue."""
    constants = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
    events = [{"event": "message", "kind": "user", "text": t * 100} for t in "xy"]
    events += [{"event": "start", "node": [0, leaf]} for leaf in (0, 1)]
    scenario = Scenario(constants_dict(constants), events, "test", 0)
    slip = slips.named("slip:queue.check_start.less-le.0")
    right = slips.answers_of(scenario, SPEC, (), None)
    slipped = slips.answers_of(scenario, SPEC, (), slip)
    assert right is not None and slipped is not None
    assert "refused" not in right[3] and slipped[3]["refused"] == "node_exists"
    assert right[:3] == slipped[:3] and slipped[3]["queue"] != [[0, 0]]
    answer = {**slipped[3], "refused": "busy", "queue": [[0, 0]]}
    failure = slips.Failure("f", scenario, SPEC, (), 3, answer, rules=False, expected=right[:4])
    assert failure.left_by(slip) == ("queue", slipped[3]["queue"])


TWO_AT_ONCE = "refused_kind_0"
"""A scenario whose first diverging answer, at a timeout, shows the queue
order slip (merges_first.py: the queue) and `\\r\\n` flattened to two
spaces (crlf_two_spaces.py: the timed-out render) both."""
ORDER_ONLY = ["flat_0", "flat_1"]
"""Larger scenarios where the queue order slip shows first, alone."""


def test_two_slips_bugs_at_one_answer_are_counted_once_and_listed_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The queue order slip and `\\r\\n` flattened to two spaces, each named
    by its slip: the FAIL showing both at one answer, tried before the
    second's group was made (no slip alone explains it; the model with both
    does), is counted in one cause and listed in the other's; the queue
    order's cause is shrunk from a FAIL that shows its bug alone, not from
    that smaller one, and its shrunk scenario shows that bug alone."""
    planted_engine(monkeypatch)
    both = ROOT / "scenarios" / "corpus" / f"{TWO_AT_ONCE}.jsonl"
    # Each bug alone, apart from the grouping: both diverge first at one answer.
    at = {plant: check(both, Options(engine=f"{PLANTED} {plant}")).divergence
          for plant in ("merges_first", "crlf")}  # fmt: skip
    assert at["merges_first"] is not None and at["crlf"] is not None
    assert at["merges_first"]["position"] == at["crlf"]["position"]
    assert (at["merges_first"]["field"], at["crlf"]["field"]) == ("queue", "render_timed_out_crc")
    names = [TWO_AT_ONCE, *ORDER_ONLY, "zoom_0"]  # crlf's bug first in zoom_0
    out, found = planted_run(tmp_path, capsys, "crlf merges_first", names)
    verdict = "4 scenarios: 4 FAIL from 2 causes (2 showing two causes' bugs, counted once)"
    assert f"verdict before shrinking: {verdict}" in out, out
    assert out.splitlines()[-1].startswith(verdict), out
    by_function = {c["slip"]["function"]: c for c in found}
    order, crlf = by_function["candidates"], by_function["flatten"]
    assert sorted(Path(p).stem for p in order["scenarios"]) == sorted([TWO_AT_ONCE, *ORDER_ONLY])
    assert [Path(p).stem for p in crlf["scenarios"]] == ["zoom_0"]
    assert [Path(p).stem for p in crlf["after"]] == [TWO_AT_ONCE]
    assert [Path(p).stem for p in order["after"]] == ["zoom_0"]  # it shows after crlf's there
    # Shrunk from a FAIL of its bug alone, and showing it alone.
    assert Path(order["representative"]).stem in ORDER_ONLY, order["representative"]
    shrunk = Path(order["shrunk"])
    assert field_at(shrunk, "merges_first") is not None
    assert field_at(shrunk, "crlf") is None


def test_a_slips_bug_beside_another_of_its_part_at_one_answer_is_marked_and_listed() -> None:
    """A free leaf queued (its slip's bug: the size) and a view's digest
    wrong (a bug no slip names) at one message: what the slip leaves has
    the FAIL's own signature (the views at a message), and the FAIL is
    still marked as showing the slip's bug and another (so that it is
    never shrunk as the other bug's cause: its first divergence is the
    slip's), and listed in the slip's cause."""
    constants = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
    events = [{"event": "message", "kind": "user", "text": "hi"}]
    scenario = Scenario(constants_dict(constants), events, "test", 0)
    slip = slips.named("slip:machine._message.eq-ne.0")
    right = slips.answers_of(scenario, SPEC, (), None)
    slipped = slips.answers_of(scenario, SPEC, (), slip)
    assert right is not None and slipped is not None
    assert right[0]["size"] != slipped[0]["size"]
    answer = {**slipped[0], "view_digest": slipped[0]["view_digest"] ^ 1}
    failure = slips.Failure("two.jsonl", scenario, SPEC, (), 0, answer, expected=right[:1])
    event = {**events[0], "at": 0}
    divergence = {"position": 0, "event": event, "field": "size", "expected": right[0]["size"]}
    key = signature_of_json(divergence)
    assert signature_of_json({**divergence, "field": "view_digest"}) == key
    verdict = Verdict(Path("two.jsonl"), "FAIL", 0.0, divergence=divergence, failure=failure)
    alike = {key: [verdict]}
    triage.left_over(alike, [slips.Explained([slip], [])], [failure], math.inf)
    assert alike == {key: [verdict]}
    assert (failure.left, failure.beside) == (key.id, slip)
    named = Cause(replace(key, slip=slip.id), ["one.jsonl"])
    triage.later_bugs([named, Cause(key, ["two.jsonl"])], {"two.jsonl": failure})
    assert named.after == ["two.jsonl"]


def test_a_cause_of_fails_that_show_a_slips_bug_beside_it_is_shrunk_to_its_bug_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip) and a running leaf not counted
    toward AHEAD (no slip), on a FAIL where both show at one answer and one
    of the free leaf's alone: the AHEAD bug's cause holds only that FAIL,
    whose first divergence is the free leaf's; it is shrunk on the engine
    against the model with the free leaf's slip, to a scenario that shows
    the AHEAD bug alone."""
    planted_engine(monkeypatch)
    out, found = planted_run(tmp_path, capsys, "queued_leaf ahead_running", [BOTH, "chooser_0"])
    verdict = "2 scenarios: 2 FAIL from 2 causes (1 showing two causes' bugs, counted once)"
    assert out.splitlines()[-1].startswith(verdict), out
    named, ahead = sorted(found, key=lambda c: not c["slip"])
    assert named["slip"]["function"] == "_message" and ahead["slip"] is None
    assert [Path(p).stem for p in ahead["scenarios"]] == [BOTH]
    assert [Path(p).stem for p in named["after"]] == [BOTH]
    assert ahead["keeps"] is not None and ahead["shrunk"] is not None, out
    shrunk = Path(ahead["shrunk"])
    assert field_at(shrunk, "ahead_running") is not None
    assert field_at(shrunk, "queued_leaf") is None


def test_a_later_bugs_shrunk_scenario_has_its_texts_plain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip), a lone `\\r` left unflattened
    and a zoom's halves newest first, both of which show only after the
    free leaf's bug here: the zoom's cause is shrunk against the model with
    the free leaf's slip, its texts then written plainly, so that the lone
    `\\r`, which shows in zooms too, does not show in its shrunk scenario."""
    planted_engine(monkeypatch)
    names = ["zoom_0", "zoom_2", "chooser_0"]
    out, found = planted_run(tmp_path, capsys, "lone_cr queued_leaf zoom", names)
    (zoom,) = [c for c in found if c["kind"] == "zoom"]
    assert zoom["scenarios"] == [] and zoom["shrunk"] is not None, out
    shrunk = Path(zoom["shrunk"])
    assert field_at(shrunk, "zoom") == "zoom@zoom"
    assert field_at(shrunk, "lone_cr") is None


def test_a_shrink_cut_short_by_the_runs_end_has_its_texts_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running leaf not counted toward AHEAD (no slip) beside `\\r\\n`
    flattened to two spaces: the AHEAD bug's FAIL, shrunk by a shrink that
    the run's end cuts short, still has its texts written plainly (the
    AHEAD bug shows so), so that the text bug shows nowhere in it."""
    planted_engine(monkeypatch)
    path = ROOT / "scenarios" / "corpus" / "both_built_once_ahead_bound.jsonl"
    failure = check(path, Options(engine=f"{PLANTED} crlf ahead_running")).failure
    assert failure is not None
    cut, wanted = failure.scenario, Signature("queue", "start")
    probe = Replays(with_bug("both", "planted", "crlf", "ahead_running"), SPEC, ())

    def spent(scenario: Scenario, *_: object) -> Scenario:
        probe.deadline = -math.inf  # the shrinks' end comes while it shrinks
        return scenario

    monkeypatch.setattr("bridge.checking.causes.simplify", spent)
    small = probe.shrunk(cut, wanted)
    assert small == plain_texts(cut) != cut
    for name, scenario in (("cut", cut), ("small", small)):
        write(scenario, tmp_path / f"{name}.jsonl")
    crlf = Options(engine=f"{PLANTED} crlf")
    assert check(tmp_path / "cut.jsonl", crlf).divergence is not None  # at the detail request
    assert check(tmp_path / "small.jsonl", crlf).divergence is None
    assert field_at(tmp_path / "small.jsonl", "ahead_running") == "queue@start"


def test_a_later_bugs_shrunk_scenario_leaves_out_a_first_bug_no_removal_can(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip) and a zoom's halves newest
    first, in zoom_2, whose zoomed leaves fit NODE: removing events and
    shrinking texts keeps them free leaves, so the free leaf's bug shows
    before the zoom's in every scenario the shrink reaches (its sweeps spent
    the tries before it lowered a constant); a scenario without it is
    looked for from there (shrink.py `parted`: a NODE no line fits), and
    the zoom's shrunk scenario shows the zoom's bug alone."""
    planted_engine(monkeypatch)
    out, found = planted_run(tmp_path, capsys, "queued_leaf zoom", ["chooser_0", "zoom_2"])
    (zoom,) = [c for c in found if c["kind"] == "zoom"]
    assert [Path(p).stem for p in zoom["after"]] == ["zoom_2"], out
    assert "it shows this bug alone (the other cause's slip changes no answer there)" in out, out
    shrunk = Path(zoom["shrunk"])
    assert field_at(shrunk, "zoom") == "zoom@zoom"
    assert field_at(shrunk, "queued_leaf") is None


def test_a_later_bugs_shrink_keeps_its_share_of_the_shrinks_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free leaf queued (named by its slip), a running leaf not counted
    toward AHEAD (grouped: no slip explains it, its FAILs of three kinds)
    and a zoom newest first (shown only after the free leaf's): the
    grouping's shrinks end before the shrinks' end, so that the zoom's
    shrink, after them, has its share (the grouping spent it all, and the
    zoom's cause of a whole-corpus run was left as it was, its first bug
    in it)."""
    planted_engine(monkeypatch)
    far = [0.0]

    def deadline(began: float, replay: float) -> float:
        far[0] = time.monotonic() + 1000  # the shrinks' end, never reached here
        return far[0]

    ends: dict[str, float] = {}

    def grouped(alike: Any, options: Any, args: Any, until: float) -> Any:
        ends["grouped"] = until
        return [], False

    def later_shrunk(cause: Cause, *args: Any) -> None:
        ends[cause.id] = args[-1]

    monkeypatch.setattr(triage, "deadline", deadline)
    monkeypatch.setattr(triage, "grouped", grouped)
    monkeypatch.setattr(triage, "later_shrunk", later_shrunk)
    names = ["chooser_0", LATER, *AHEAD]
    args = ["corpus", "--jobs", "1", "--engine", f"{PLANTED} queued_leaf ahead_running zoom"]
    code = cli.main(
        [*args, "--regressions", str(tmp_path), *(a for n in names for a in ("--only", n))]
    )
    assert code == 1, capsys.readouterr().out
    assert sorted(ends) == ["grouped", "zoom@zoom"], ends
    # Its share: one cause's of the four to shrink (three kinds grouped, the zoom's).
    assert ends["grouped"] < far[0] - 200 and ends["zoom@zoom"] > far[0] - 100, ends


def test_a_lone_fail_of_two_bugs_is_named_by_the_slip_the_engine_follows_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A free leaf queued and a zoom newest first, in zoom_2 alone: three
    slips explain its first divergence (a small message's leaf unbuilt),
    and the engine parts from each past it. A source over NODE read as free
    mimics the free leaf's bug there, and parts where the engine queues a
    larger message, as SPEC does; the condition that builds a free leaf at
    its message parts only at the zoom, the second bug: it names the group,
    and the parting it leaves is the zoom's."""
    planted_engine(monkeypatch)
    path = ROOT / "scenarios" / "corpus" / "zoom_2.jsonl"
    failure = check(path, Options(engine=f"{PLANTED} queued_leaf zoom")).failure
    assert failure is not None
    mimic = slips.named("slip:tree.is_free.le-ge.0")
    queued = slips.named("slip:machine._message.eq-ne.0")
    assert mimic.rank < queued.rank  # the smaller change, named first by rank alone
    group = slips.Explained([mimic, queued], [failure])
    assert failure.explained_by(mimic) and failure.explained_by(queued)
    early, late = failure.parting(mimic), failure.parting(queued)
    assert early is not None and late is not None
    assert early["position"] < late["position"]
    assert (early["event"]["event"], late["event"]["event"]) == ("message", "zoom")
    # The engine's answer where the mimic parts is the queued slip's.
    k, _ = failure.parted[mimic]
    assert failure.longer is not None
    slipped = slips.answers_of(failure.longer, SPEC, (), queued)
    assert slipped is not None
    assert slipped[failure.index + 1 + k][early["field"]] == early["found"] != early["expected"]
    assert slips.followed(queued, [failure]) > slips.followed(mimic, [failure]) == k
    assert slips.furthest(group) == queued


def test_a_slip_the_engine_never_parts_from_follows_it_through_every_answer_read() -> None:
    """`followed`: a slip the engine parts from at the k-th answer read
    past a FAIL's divergence follows it k answers there; one it never parts
    from, all those read (a slip that gives every answer is no mimic)."""
    constants = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
    events = [{"event": "message", "kind": "user", "text": "hi"}]
    scenario = Scenario(constants_dict(constants), events, "test", 0)
    past = [({"event": "wait"}, {"size": k}, {"size": k}) for k in range(3)]
    failure = slips.Failure("f", scenario, SPEC, (), 0, {}, expected=[{}], past=past)
    mimic = slips.named("slip:tree.is_free.le-ge.0")
    queued = slips.named("slip:machine._message.eq-ne.0")
    failure.parted[mimic] = (1, {"size": 9})
    assert slips.followed(mimic, [failure]) == 1
    assert slips.followed(queued, [failure]) == 3 == len(past)
    assert slips.followed(queued, [failure, failure]) == 6


def test_a_lone_fail_of_two_bugs_gives_a_cause_to_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """zoom_2 alone, on a free leaf queued and a zoom newest first: the
    free leaf's cause is named by the slip the engine follows to the zoom
    (and confirmed on its shrunk scenario), and the zoom's bug is a cause
    of its own, shrunk to that bug alone (it was named by a mimic, refuted
    on its shrunk scenario, and the zoom's bug was in no cause)."""
    planted_engine(monkeypatch)
    out, found = planted_run(tmp_path, capsys, "queued_leaf zoom", ["zoom_2"])
    verdict = "1 scenario: 1 FAIL from 2 causes (1 showing two causes' bugs, counted once)"
    assert out.splitlines()[-1].startswith(verdict), out
    assert "does not agree with the slip" not in out, out
    named, zoom = sorted(found, key=lambda c: not c["slip"])
    assert named["slip"]["id"] == "slip:machine._message.eq-ne.0", out
    assert zoom["kind"] == "zoom" and [Path(p).stem for p in zoom["after"]] == ["zoom_2"]
    for cause, alone, other in ((named, "queued_leaf", "zoom"), (zoom, "zoom", "queued_leaf")):
        shrunk = Path(cause["shrunk"])
        assert field_at(shrunk, alone) is not None, cause["id"]
        assert field_at(shrunk, other) is None, cause["id"]


def test_a_slip_refuted_on_its_shrunk_scenario_falls_back_on_one_the_engine_agrees_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """zoom_2 alone, on ready merges offered before unbuilt leaves and a
    free leaf counted as a placeholder: as far as the engine was read, the
    FAIL does not tell the queue order slip from another slip of
    `candidates` (the engine parts from both where the free leaf's bug
    shows). The one named first is refuted on its shrunk scenario; the
    cause is named by the next of its group's slips that the engine agrees
    with there (its FAILs were grouped as no slip's, and the free leaf's
    bug, shown after the named one's, was in no cause)."""
    planted_engine(monkeypatch)
    monkeypatch.setattr(slips, "TRIES", 150)  # each slip's shrink, as far as it needs here
    report = tmp_path / "r.json"
    args = ["corpus", "--jobs", "1", "--engine", f"{PLANTED} free_leaf merges_first"]
    args += ["--only", "zoom_2", "--shrink-seconds", NEVER, "--shrink-tries", "1"]
    code = cli.main([*args, "--regressions", str(tmp_path / "found"), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    found = json.loads(report.read_text())["causes"]
    refuted = "slip:queue.candidates.eq-ne.0"
    assert f"note: {refuted}: the engine does not agree with the slip on its shrunk" in out, out
    verdict = "1 scenario: 1 FAIL from 2 causes (1 showing two causes' bugs, counted once)"
    assert out.splitlines()[-1].startswith(verdict), out
    named, later = sorted(found, key=lambda c: not c["slip"])
    order = slips.named("slip:queue.candidates.swap-concat.0")
    assert named["slip"]["id"] == order.id and later["slip"] is None, out
    assert [Path(p).stem for p in later["after"]] == ["zoom_2"]
    # The engine with the order slip alone agrees with its model on the
    # shrunk scenario, and not with the refuted slip's.
    shrunk = stream(Path(named["shrunk"]))
    alone = with_bug("alone", "planted", "merges_first")
    assert slips.against(alone, shrunk, order, SPEC, ()) is None
    assert slips.against(alone, shrunk, slips.named(refuted), SPEC, ())
    assert field_at(Path(named["shrunk"]), "free_leaf") is None


def test_a_fail_marked_with_a_slip_refuted_on_its_shrunk_scenario_is_marked_again(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FAIL marked as showing a slip's bug beside another at one answer
    (`left_over`): when the engine refutes that slip on its cause's shrunk
    scenario, the FAIL is marked with the slip that names the cause then,
    if that one leaves something of its answer too; with no slip confirmed,
    it is unmarked (grouped at its own first divergence, no bug claimed for
    a refuted slip)."""
    constants = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
    events = [{"event": "message", "kind": "user", "text": "hi"}]
    scenario = Scenario(constants_dict(constants), events, "test", 0)
    mimic = slips.named("slip:tree.is_free.le-ge.0")
    queued = slips.named("slip:machine._message.eq-ne.0")
    order = slips.named("slip:queue.candidates.swap-concat.0")  # the size it leaves as SPEC's
    right = slips.answers_of(scenario, SPEC, (), None)
    slipped = slips.answers_of(scenario, SPEC, (), queued)
    assert right is not None and slipped is not None
    answer = {**slipped[0], "view_digest": slipped[0]["view_digest"] ^ 1}

    def shrunk(cause: Cause, *_: object) -> None:
        cause.confirmed = cause.slip == queued  # the engine refutes every other slip

    monkeypatch.setattr(triage, "slip_shrunk", shrunk)
    args, impl_ = triage.Shrinking(1, None, Path("unused"), 1), Options("impl")
    for fallback, still in ((queued, queued), (order, None)):
        failure = slips.Failure("two.jsonl", scenario, SPEC, (), 0, answer, expected=right[:1])
        failure.beside, failure.left = mimic, "views@message"
        assert failure.left_by(mimic) is not None and failure.left_by(order) is None
        named = Signature("size", "message", slip=mimic.id)
        cause = Cause(named, ["one.jsonl"], fallbacks=[fallback.id])
        unmarked = triage.named_by(cause, {"two.jsonl": failure}, impl_, args, math.inf, [])
        out = capsys.readouterr().out
        assert f"note: {mimic.id}: the engine does not agree with the slip" in out, out
        assert cause.slip == fallback and cause.confirmed == (still is not None)
        assert failure.beside == still
        assert (unmarked, failure.left) == (([], "views@message") if still else ([failure], ""))


def test_a_cause_tries_a_few_other_slips_at_most(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the engine refutes every slip of a cause on its shrunk
    scenario, the cause is shrunk with FALLBACKS other slips at most (each
    a shrink more), then left unconfirmed."""
    tried: list[str] = []

    def shrunk(cause: Cause, *_: object) -> None:
        tried.append(cause.signature.slip or "")
        cause.confirmed = False

    monkeypatch.setattr(triage, "slip_shrunk", shrunk)
    ids = [slip.id for slip in slips.catalogue()[: triage.FALLBACKS + 3]]
    cause = Cause(Signature("size", "message", slip=ids[0]), ["one.jsonl"], fallbacks=ids[1:])
    args = triage.Shrinking(1, None, Path("unused"), 1)
    assert triage.named_by(cause, {}, Options("impl"), args, math.inf, [cause]) == []
    assert tried == ids[: triage.FALLBACKS + 1] and not cause.confirmed
    out = capsys.readouterr().out
    assert out.count("does not agree with the slip") == len(tried), out
    assert out.splitlines()[-1].endswith("its FAILs are grouped as those no slip explains"), out


def test_a_fail_unmarked_is_grouped_at_its_own_first_divergence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FAIL grouped by what a slip leaves of its diverging answer (the
    queue), unmarked once that slip is refuted (`named_by`), is grouped by
    its own first divergence (the size: the views at a message)."""
    constants = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=2)
    events = [{"event": "message", "kind": "user", "text": "hi"}]
    scenario = Scenario(constants_dict(constants), events, "test", 0)
    failure = slips.Failure("two.jsonl", scenario, SPEC, (), 0, {}, expected=[{}])
    divergence = {"position": 0, "event": {**events[0], "at": 0}, "field": "size"}
    own, residual = (signature_of_json({**divergence, "field": f}) for f in ("size", "queue"))
    assert own != residual
    verdict = Verdict(Path("two.jsonl"), "FAIL", 0.0, divergence=divergence, failure=failure)
    slip = slips.named("slip:tree.is_free.le-ge.0")
    failure.beside, failure.left = slip, residual.id
    cause = Cause(replace(own, slip=slip.id), ["one.jsonl"])

    def named_by(named: Cause, *_: object) -> list[slips.Failure]:
        named.confirmed, named.representative = True, "one.jsonl"  # by another slip,
        # which leaves nothing of the FAIL's answer
        failure.beside, failure.left = None, ""
        return [failure]

    seen: list[dict[Signature, list[Verdict]]] = []
    monkeypatch.setattr(triage, "named_by", named_by)
    monkeypatch.setattr(triage, "grouped", lambda alike, *_: (seen.append(alike), ([], False))[1])
    args = triage.Shrinking(1, None, Path("unused"), 1)
    triage.shrunk([cause], {residual: [verdict]}, Options("impl"), args)
    assert seen == [{own: [verdict]}]
