"""Shrinking that keeps the divergence, the recorded engine, and `python -m
bridge diagnose` on the example engines (issue 21): the partial engine
(undeclared differences) and the engine with a planted bug (a free leaf
counted as a placeholder during its message's batch)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
from referencing import Registry, Resource

from bridge import cli
from bridge.checking.changes import LACKS, Change, Trial, applied, changes, inert, stand_in
from bridge.checking.compare import run
from bridge.checking.shrink import diverges_as, simplify, way_of
from bridge.formats.capabilities import ALL
from bridge.formats.layout import expected_path
from bridge.formats.profile import SPEC
from bridge.runs.corpus import Options, check
from bridge.wire.engine import Engine
from bridge.wire.inprocess import ModelEngine
from bridge.wire.recorded import Recorded
from bridge.wire.stream import from_model, from_transcript
from model import bits
from model.profile import TYPES, Profile, options
from scenarios import format as scenario_format
from scenarios.format import Scenario
from scenarios.strategies import constants_dict
from tests.bridge.engines import partial
from tests.bridge.helpers import NEVER, SMALL, InProcessExample, in_process, planted

ROOT = Path(__file__).resolve().parents[2]
ENGINES = Path(__file__).parent / "engines"
PARTIAL = json.loads((ROOT / "scenarios" / "profiles" / "partial.json").read_text(encoding="utf-8"))
PARTIAL_HELD = ALL - {"timed_out_render", "zoom"}
PARTIAL_ENGINE = f"{sys.executable} {ENGINES / 'partial.py'}"
BUGGY = f"{sys.executable} {ENGINES / 'free_leaf_bug.py'}"
CORPUS = ROOT / "scenarios" / "corpus"

SCHEMAS = Registry().with_resources(
    (f"https://optchat-spec/bridge/{name}", Resource.from_contents(json.loads(text)))
    for name, text in (
        (p.name, p.read_text(encoding="utf-8")) for p in (ROOT / "bridge").glob("*.schema.json")
    )
)
DIAGNOSIS_SCHEMA = json.loads((ROOT / "bridge" / "diagnosis.schema.json").read_text("utf-8"))


@pytest.fixture
def engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol engines run as scripts find the project's packages."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


@pytest.fixture(autouse=True)
def partial_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The partial engine without its planted bug (which needs plain Python)
    runs in this process where the runner does."""

    def engine(spec: str) -> Engine | None:
        if spec == BUGGY:
            made = InProcessExample(spec, {}, "optchat-spec impl")
        elif spec.startswith(PARTIAL_ENGINE):
            declared = "--declare" in shlex.split(spec)
            held = partial.CAPABILITIES if declared else None
            said = partial.PARTIAL if declared else None
            made = InProcessExample(
                spec, partial.PARTIAL, "partial example", said, held, partial.LACKED
            )
        else:
            return None
        if spec == BUGGY or "--bug" in shlex.split(spec):
            made.protocol = planted("free_leaf_bug")
        return made

    in_process(monkeypatch, engine)


def test_each_change_changes_one_option_and_every_enumerable_option_is_tried() -> None:
    tried = set()
    base = Trial(SPEC)
    for change in changes(base):
        trial = applied(base, (change,))
        assert trial is not None
        if change.option == LACKS:
            assert trial.profile == SPEC and base.held - trial.held == {change.value}
            tried.add(change.value)
            continue
        changed = options(trial.profile)
        differ = [k for k, v in options(SPEC).items() if changed[k] != v]
        assert differ == [change.option] and trial.held == base.held
        tried.add(change.option)
    enumerable = {n for n, kind in TYPES.items() if kind is bool or isinstance(kind, tuple)}
    assert tried == enumerable | ALL and "kind_words" not in tried
    # A capability that takes another with it is tried after that one.
    order = [c.value for c in changes(base) if c.option == LACKS]
    assert order.index("timed_out_render") < order.index("settle_timeout")


class Counting(ModelEngine):
    """The model, counting the lines it answers."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = 0

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        self.answered += 1
        return super().answer(line)


def test_a_recording_answers_lines_sent_again_from_memory_and_restarts_on_another() -> None:
    scenario = Scenario(
        constants_dict(SMALL),
        [{"event": "message", "kind": "user", "text": "a"}, {"event": "wait"}],
    )
    lines = [{**e, "at": k} for k, e in enumerate(scenario.events)] + [{"detail": True}]
    engine = Counting()
    recorded = Recorded(engine, scenario)

    def answers(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
        recorded.start(scenario)
        for line in sent:
            recorded.send(line)
        return [recorded.receive() for _ in sent]

    model = ModelEngine()
    model.start(scenario)
    assert answers(lines[:1]) == [model.answer(lines[0])]
    assert engine.answered == 1  # only what was asked reaches the engine
    first = answers(lines)
    assert engine.answered == 3  # the first line from memory, the others passed on
    assert answers(lines) == first and engine.answered == 3  # every answer from memory
    # A run that leaves the recording but stops before reading that answer
    # (at a divergence) costs the engine nothing.
    recorded.start(scenario)
    recorded.send(lines[0])
    recorded.send({"event": "settle", "at": 1})
    assert recorded.receive() == first[0]
    assert engine.answered == 3 and recorded.restarts == 0
    other = {"event": "message", "kind": "note", "text": "bbb", "at": 0}
    (answer,) = answers([other])
    # The model takes sessions: the recording's last line, the detail
    # request, ended the first; no second one is sent before `other`.
    assert engine.answered == 4 and recorded.restarts == 1
    assert answer["size"] == len("note: bbb") != first[0]["size"]
    # Back on the first lines: a detail request ends `other`'s session, then
    # the engine is started again and given them.
    assert answers(lines) == first
    assert recorded.restarts == 2 and engine.answered == 8


class TwoFaults(ModelEngine):
    """SPEC's model with two faults: the size one too many after a note
    message that is the fifth message or later (the bug, five events at
    least), and a wait before the third message answered with a wrong queue
    (a cheaper divergence, one event, which drops in when messages go)."""

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        out = super().answer(line)
        if line.get("kind") == "note" and bits.to_int(self.state.count) >= 5:
            out = {**out, "size": out["size"] + 1}
        if line.get("event") == "wait" and bits.to_int(self.state.count) < 3:
            out = {**out, "queue_waiting": ["not", "this"]}
        return out


def test_shrinking_keeps_the_divergence_it_was_given_not_a_cheaper_one() -> None:
    message = {"event": "message", "kind": "user", "text": "x"}
    events = [message] * 4 + [{"event": "wait"}, {"event": "message", "kind": "note", "text": "n"}]
    scenario = Scenario(constants_dict(SMALL), events)
    engine = TwoFaults()
    found = run(from_model(scenario, SPEC, strict=False), engine, engine.start(scenario)).divergence
    assert found is not None and found.position == 5
    way = way_of(found)
    assert way == ("message", "views")
    small = simplify(scenario, diverges_as(engine, SPEC, way, strict=False), 60)
    assert [e["kind"] for e in small.events if e["event"] == "message"][-1] == "note"
    assert not any(e["event"] == "wait" for e in small.events)

    def any_divergence(s: Scenario) -> bool:
        ready = engine.start(s)
        return (
            run(from_model(s, SPEC, strict=False), engine, ready, None, True).divergence is not None
        )

    # What this guards against: a shrinker keeping any divergence ends at the wait.
    drifted = simplify(scenario, any_divergence, 60)
    assert [e["event"] for e in drifted.events] == ["wait"]


def test_a_way_that_differs_is_not_kept() -> None:
    events = [{"event": "message", "kind": "user", "text": "x" * 40}] * 3
    scenario = Scenario(constants_dict(SMALL), events)
    engine = ModelEngine(Profile(kind_words=(("user", "you"),)))
    still = diverges_as(engine, SPEC, ("message", "views"), strict=False)
    assert still(scenario)
    assert not diverges_as(engine, SPEC, ("message", "queue"), strict=False)(scenario)


def diagnose(tmp_path: Path, engine: str, *names: str, more: tuple[str, ...] = ()) -> int:
    """`diagnose` on corpus scenarios, in this process (one job: no pool of workers)."""
    paths = [str(CORPUS / f"{name}.jsonl") for name in names]
    return cli.main(
        ["diagnose", *paths, "--engine", engine, "--jobs", "1", *more]
        + ["--regressions", str(tmp_path), "--shrink-seconds", NEVER]
    )


def valid(path: Path) -> dict[str, Any]:
    """A `diagnose --json` report, checked against bridge/diagnosis.schema.json."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(DIAGNOSIS_SCHEMA, registry=SCHEMAS).validate(data)
    return data


def corpus_coverage(tmp_path: Path, engine: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The `corpus` run's JSON report on the same scenarios under `engine`
    (one job: in this process)."""
    report = tmp_path / "corpus.json"
    paths = [str(CORPUS / f"{name}.jsonl") for name in names]
    reports = ["--json", str(report), "--regressions", str(tmp_path)]
    cli.main(["corpus", *paths, "--engine", engine, "--jobs", "1", *reports])
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def says_coverage(data: dict[str, Any], out: str, suite: ElementTree.Element) -> None:
    """The text, JSON and JUnit reports say the same coverage."""
    counted = data["coverage"]
    line = re.search(r"^under the proposed profile: (compared .*)$", out, re.M)
    assert line is not None, out
    assert line.group(1).startswith(f"compared {counted['compared']:,} of {counted['events']:,}")
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert said["coverage"] == line.group(1)
    assert int(said["events_compared"]) == counted["compared"]
    assert int(said["events_to_deliver"]) == counted["delivery"]["events"]
    assert int(said["events_delivered"]) == counted["delivery"]["delivered"]
    assert float(said["fraction_delivered"]) == pytest.approx(counted["delivery"]["fraction"])


def proposed(out: str) -> dict[str, Any]:
    found = re.search(r"^proposed profile and capabilities .*\n(\{.*\})$", out, re.M)
    assert found is not None, out
    return json.loads(found.group(1))


SPEC_PROPOSAL = {"profile": {}, "capabilities": sorted(ALL)}
"""What diagnose proposes for an engine with no deliberate difference."""
PARTIAL_PROPOSAL = {"profile": PARTIAL, "capabilities": sorted(PARTIAL_HELD)}
"""The partial engine's real profile and capabilities."""

PARTIAL_SCENARIOS = ("chooser_0", "zoom_1")
"""Small scenarios whose divergences from SPEC under the partial engine need
each of its four differences (the whole corpus takes minutes: `python -m
bench.diagnose` runs it)."""


def test_diagnose_proposes_exactly_the_partial_engines_profile(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # A name with characters JSON and XML must escape: the engine ignores the argument.
    engine = PARTIAL_ENGINE + " '<x a=\"&amp;\">\u00e9'"
    reports = ("--json", str(tmp_path / "d.json"), "--junit-xml", str(tmp_path / "d.xml"))
    code = diagnose(tmp_path, engine, *PARTIAL_SCENARIOS, more=reports)
    out = capsys.readouterr().out
    assert code == 0, out
    assert proposed(out) == PARTIAL_PROPOSAL
    assert "no likely bug" in out
    for option in [*PARTIAL, 'lacks: "timed_out_render', 'lacks: "zoom']:
        assert re.search(rf"^  {option}.*: needed by \d+: ", out, re.M), out
    assert "a bug that\nonly looks like one" in out
    data = valid(tmp_path / "d.json")
    assert data["engine"] == engine and data["proposed"] == PARTIAL_PROPOSAL
    assert data["likely_bugs"] == [] and data["counts"] == {"explained": 2}
    deviations = {(d["option"], json.dumps(d["value"])): d["scenarios"] for d in data["deviations"]}
    assert deviations[("lacks", '"zoom"')] == ["zoom_1.jsonl"]
    assert "chooser_0.jsonl" in deviations[("empty_reply", '"fails"')]
    assert set(deviations) == {(k, json.dumps(v)) for k, v in PARTIAL.items()} | {
        ("lacks", '"timed_out_render"'),
        ("lacks", '"zoom"'),
    }
    suite = ElementTree.parse(tmp_path / "d.xml").getroot()
    assert suite.get("name") == f"optchat-spec diagnose ({engine})"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "0")
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert json.loads(said["proposed"]) == PARTIAL_PROPOSAL
    assert said['deviation lacks: "zoom"'] == "zoom_1"
    says_coverage(data, out, suite)
    # What a corpus run of the engine declaring what diagnose proposed compares.
    run = corpus_coverage(tmp_path, PARTIAL_ENGINE + " --declare", PARTIAL_SCENARIOS)
    assert data["coverage"] == run["coverage"]
    assert [s["coverage"] for s in data["scenarios"]] == [s["coverage"] for s in run["scenarios"]]
    assert data["coverage"]["delivery"]["scenarios"] == 1 and data["coverage"]["skipped"] > 0
    lacked = {c["capability"]: c for c in data["coverage"]["not_implemented"]}
    assert set(lacked) == {"timed_out_render", "zoom"}
    assert lacked["timed_out_render"]["fields_not_compared"] > 0
    # A test case's output says what its replay did not compare.
    out_of = {c.get("name"): c.findtext("system-out") or "" for c in suite.iter("testcase")}
    fields = lacked["timed_out_render"]["fields_not_compared"]
    assert f"timed_out_render ({fields} fields not compared" in out_of["chooser_0"]
    zooms = len(scenario_format.read(CORPUS / "zoom_1.jsonl").events)
    assert f"{zooms:,} in SKIPPED scenarios" in out_of["zoom_1"]  # it tests only zoom


@pytest.mark.more  # a whole corpus through an engine process: `make test-more`
def test_the_partial_engine_declaring_its_profile_agrees_on_the_whole_corpus(
    engine_path: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every scenario, compared with the transcripts of the engine's profile
    (scenarios/profiles/partial.json is kept: the model under it would cost a
    minute of CPU), since the issue asks for the whole corpus."""
    report = tmp_path / "run.json"
    engine = PARTIAL_ENGINE + " --declare"
    code = cli.main(["corpus", "--engine", engine, "--jobs", "2", "--json", str(report)])
    assert code == 0, capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    skipped = {v["scenario"]: v["reason"] for v in data["scenarios"] if v["status"] == "SKIPPED"}
    assert {v["status"] for v in data["scenarios"]} == {"ok", "SKIPPED"}
    # Only what tests nothing but zoom is left out, and the refusals scenarios
    # exist for that the profile does not make (retry: tick keeps nodes held
    # otherwise: bridge/checking/purpose.py); the timed-out render's fields
    # are not compared.
    zooms = [name for name in skipped if name.startswith(("zoom_", "refused_zoom_"))]
    assert len(zooms) == 6
    assert all(
        skipped[name].startswith("not tested: it exists for") for name in set(skipped) - set(zooms)
    )
    coverage = data["coverage"]
    assert coverage["compared"] >= 0.95 * coverage["events"]
    lacked = {c["capability"]: c for c in coverage["not_implemented"]}
    assert set(lacked) == {"timed_out_render", "zoom"}
    assert lacked["timed_out_render"]["fields_not_compared"] > 0


BUG_SCENARIOS = ("random_07", "chooser_2", "random_21")
"""Scenarios where the planted bug shows (random_21, 1,423 events, where
random_03 had 4,889: the same findings for half the CPU). Not random_13:
since `free_leaves: queued` (issue 44) the bug, a free leaf counted as a placeholder in its
message's batch, looks like that option wherever the leaf is offered at
once; diagnose withholds the option (2 likely bugs show its symptom
unexplained), but random_13, followed under it, then wanted `compaction_view`
taken away, which stayed proposed."""


def test_diagnose_shrinks_within_the_replays_it_is_given(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--shrink-tries` counts replays (as compare's and fuzz's do): two
    replays remove at most three quarters of the events, where the default
    budget reaches five or fewer (the test below)."""
    code = diagnose(tmp_path, BUGGY, "chooser_2", more=("--shrink-tries", "2"))
    out = capsys.readouterr().out
    assert code == 1, out
    (count,) = re.findall(r"^     shrunk from chooser_2\.jsonl, \d+ events to (\d+): ", out, re.M)
    (position,) = re.findall(r"^     chooser_2\.jsonl: event (\d+) ", out, re.M)
    assert (int(position) + 1) // 4 <= int(count) <= int(position) + 1, out
    assert int(count) > 5, out


def test_diagnose_names_the_planted_bug_as_a_likely_bug_shrunk_to_five_events(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "d.xml"
    more = ("--junit-xml", str(report), "--json", str(tmp_path / "d.json"))
    code = diagnose(tmp_path, BUGGY, *BUG_SCENARIOS, more=more)
    out = capsys.readouterr().out
    assert code == 1, out
    assert proposed(out) == SPEC_PROPOSAL
    data = valid(tmp_path / "d.json")
    says_coverage(data, out, ElementTree.parse(report).getroot())
    # Under SPEC, each stops at the bug as a corpus run does: what follows is not compared.
    run = corpus_coverage(tmp_path / "corpus", BUGGY, BUG_SCENARIOS)
    assert data["coverage"] == run["coverage"]
    assert data["coverage"]["stopped"] and data["coverage"]["not_reached"] > 0
    assert data["coverage"]["delivery"]["scenarios"] == 0
    assert "the replay stopped early" in out
    failed = [c for c in ElementTree.parse(report).getroot() if c.find("failure") is not None]
    assert sorted(c.get("name") for c in failed) == sorted(BUG_SCENARIOS)
    # Named as corpus names the causes of the same FAILs, in its lines; each shrunk.
    causes = re.findall(r"^  \d+\. \S+: (\d+) scenarios?: ", out, re.M)
    assert sum(map(int, causes)) == len(BUG_SCENARIOS), out
    assert [c["id"] for c in data["causes"]] == [c["id"] for c in run["causes"]], out
    assert f"{len(causes)} LIKELY BUG" in out.splitlines()[-1]
    said = [(c.find("failure").text or "") for c in failed]  # type: ignore[union-attr]
    assert sum("shrunk: " in text for text in said) == len(causes)
    shrunk = re.findall(r"^     shrunk from \S+, \d+ events to (\d+): (.*)$", out, re.M)
    assert len(shrunk) == len(causes), out
    for count, path in shrunk:
        small = scenario_format.read(Path(path))
        assert int(count) == len(small.events) <= 5
        # The planted bug, and nothing else: the engine without it agrees there.
        assert cli.main(["compare", path, "--engine", "impl"]) == 0
        assert (
            cli.main(["compare", path, "--engine", BUGGY, "--regressions", str(tmp_path / "x")])
            == 1
        )


def is_free(event: dict[str, Any], node: int) -> bool:
    """Whether a message's line fits NODE: its leaf is built at once (SPEC 2)."""
    text = len(event["text"].encode()) if "text" in event else event["size"]
    return len(event["kind"]) + 2 + text <= node


def test_the_buggy_engine_fails_only_at_free_leaves_batches(engine_path: None) -> None:
    """Each scenario checked as `corpus` checks it, its first divergence
    alone (no grouping into causes, which these asserts do not read)."""
    names = ("random_07", "random_13", "zoom_1", "empty_chat", "refused_kind_0", "chooser_0")
    verdicts = [check(CORPUS / f"{name}.jsonl", Options(BUGGY, quiet=True)) for name in names]
    failed = [v for v in verdicts if v.status == "FAIL"]
    assert {v.status for v in verdicts} <= {"ok", "FAIL"} and len(failed) >= 3
    for verdict in failed:
        scenario = scenario_format.read(verdict.path)
        found = verdict.divergence
        assert found is not None
        event = scenario.events[found["position"]]
        assert event["event"] == "message" and is_free(event, int(scenario.constants["node"]))
        assert found["field"] in ("size", "shrinking", "merges", "cmerges")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzz_under_the_declared_profile_finds_the_planted_bug(
    seed: int, tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Counted in histories, not seconds (a slow machine takes longer, the
    same histories): each seed finds it within 300 (about 50 are drawn).
    Shrinking (hundreds of replays) is not what is tested: one replay."""
    engine = PARTIAL_ENGINE + " --bug --declare"
    code = cli.main(
        ["fuzz", "--engine", engine, "--seed", str(seed), "--histories", "300"]
        + ["--shrink-tries", "1", "--regressions", str(tmp_path), "--max-causes", "1"]
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "not implemented: timed_out_render, zoom)" in out.splitlines()[0], out
    found = re.search(r"^shrunk to \d+ of \d+ events .*: (.*\.jsonl)$", out, re.M)
    assert found is not None, out
    # The planted bug, not a declared difference: without the bug the engine agrees there.
    assert cli.main(["compare", found.group(1), "--engine", PARTIAL_ENGINE + " --declare"]) == 0


def test_fuzz_under_the_declared_profile_finds_nothing_in_an_engine_without_the_bug(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = PARTIAL_ENGINE + " --declare"
    code = cli.main(
        ["fuzz", "--engine", engine, "--seed", "1", "--histories", "60"]
        + ["--regressions", str(tmp_path)]
    )
    assert code == 0, capsys.readouterr().out


def test_diagnose_of_an_engine_that_agrees_proposes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = diagnose(tmp_path, "impl", "random_00", "refused_kind_0")
    out = capsys.readouterr().out
    assert code == 0, out
    assert proposed(out) == SPEC_PROPOSAL
    assert "no change of the profile or capabilities is needed" in out
    assert not tmp_path.joinpath("scenarios").exists()


def test_diagnose_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "file"
    taken.write_text("")
    scenario = str(CORPUS / "random_00.jsonl")
    assert cli.main(["diagnose", scenario, "--engine", "impl", "--regressions", str(taken)]) == 2
    assert cli.main(["diagnose", str(tmp_path / "missing.jsonl"), "--engine", "impl"]) == 2
    # The reports' places are tried before the run: no engine is started.
    never = ["diagnose", scenario, "--engine", str(tmp_path / "no-such-engine")]
    assert cli.main([*never, "--json", str(taken / "d.json")]) == 2
    assert cli.main([*never, "--junit-xml", str(tmp_path)]) == 2
    said = capsys.readouterr()
    assert said.out == "" and len(said.err.strip().splitlines()) == 4, said.err
    assert "--regressions" in said.err and "missing.jsonl" in said.err
    assert "--json" in said.err and "--junit-xml" in said.err and "no-such-engine" not in said.err
    assert not list(tmp_path.glob("**/*.tmp"))


def test_diagnose_tells_the_differences_from_the_bug_in_one_engine(
    tmp_path: Path, engine_path: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The partial engine with the planted bug, declaring nothing: the
    proposal is its profile, and what is left is the bug, shrunk. The bug
    shows in chooser_2 (1,225 events; random_11, 1,220, cost a third more
    CPU for the same findings, random_03, 4,900, four times) under the
    differences beside it, which the two small scenarios need."""
    code = diagnose(tmp_path, PARTIAL_ENGINE + " --bug", *PARTIAL_SCENARIOS, "chooser_2")
    out = capsys.readouterr().out
    assert code == 1, out
    assert proposed(out) == PARTIAL_PROPOSAL  # not random_13: see BUG_SCENARIOS
    shrunk = re.findall(r"^     shrunk from (\w+)\.jsonl, \d+ events to (\d+): (.*)$", out, re.M)
    bugs = [name for name, _, _ in shrunk]
    assert "chooser_2" in bugs and "zoom_1" not in bugs, out
    # Its replay shows the bug under the proposal, which this engine does not declare.
    assert "     (its replay shows the bug with --proposal, which gives the proposed " in out
    replays = re.findall(r"^     replay it: .* compare (.*)$", out, re.M)
    assert len(replays) == len(shrunk), out
    for (_, count, path), replay in zip(shrunk, replays, strict=True):
        assert int(count) <= 5
        # Shrunk under the proposal: the engine declaring it fails there with
        # the bug, and agrees without it.
        assert cli.main(["compare", path, "--engine", PARTIAL_ENGINE + " --bug --declare"]) == 1
        assert cli.main(["compare", path, "--engine", PARTIAL_ENGINE + " --declare"]) == 0
        # Replayed as printed, it passes the proposal: the engine fails there,
        # and the same command with the engine without the bug agrees.
        args = shlex.split(replay)
        assert args[:3] == [path, "--engine", PARTIAL_ENGINE + " --bug"], replay
        again = ["--regressions", str(tmp_path / "again")]
        capsys.readouterr()
        assert cli.main(["compare", *args, *again]) == 1
        # compare's own replay line passes the proposal on, already shrunk or shrunk anew.
        (replayed,) = re.findall(r"^replay it: .* compare (.*)$", capsys.readouterr().out, re.M)
        assert shlex.split(replayed)[1:] == args[1:], replayed
        assert cli.main(["compare", path, "--engine", PARTIAL_ENGINE, *args[3:]]) == 0
    lines = Path(path).read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    del header["notes"]["shrunk"]
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    capsys.readouterr()
    assert cli.main(["compare", str(fresh), *args[1:], *again]) == 1
    said = capsys.readouterr().out
    (replayed,) = re.findall(r"^replay it: .* compare (.*)$", said, re.M)
    assert shlex.split(replayed)[1:] == args[1:], said
    (page,) = re.findall(r"^the divergence shown: (.*)$", said, re.M)
    assert "The model runs under --proposal: deviations: " in Path(page).read_text()


def test_a_scenario_is_checked_again_unless_what_the_proposal_adds_changes_nothing_sent() -> None:
    messages = [{"event": "message", "kind": "user", "text": "x"}] * 2
    waits = [{"event": "wait"}, {"event": "timeout"}]
    plain = Scenario(constants_dict(SMALL), messages + waits)
    zoomed = Scenario(constants_dict(SMALL), [*messages, {"event": "zoom", "id": 0, "n": 1}])

    def lacks(*names: str) -> tuple[Change, ...]:
        return tuple(Change(LACKS, name) for name in names)

    # Fields not compared, and events the scenario does not have, change nothing.
    assert inert(plain, lacks("timed_out_render", "zoom", "compaction_view", "queue_waiting"))
    assert inert(zoomed, lacks("settle_timeout", "replies"))
    # Events withheld, a profile option, or a scenario that did not agree: checked again.
    assert not inert(plain, lacks("settle_timeout"))
    assert not inert(zoomed, lacks("zoom"))
    assert not inert(plain, (Change("calls", "self"),))
    assert not inert(plain, lacks("zoom") + (Change("calls", "self"),))
    assert not inert(plain, None)
    # The chooser's options, in a scenario without replies, change nothing either.
    chooser = (Change("empty_reply", "fails"), Change("not_shorter", "goes_on"))
    assert inert(plain, chooser + lacks("zoom"))
    end = {"event": "end", "node": [0, 0], "replies": ["", "a"]}
    replied = Scenario(constants_dict(SMALL), [*messages, {"event": "start", "node": [0, 0]}, end])
    assert not inert(replied, chooser[:1])
    # The options about failed calls, where no call can fail, change nothing.
    failure = (Change("retry", "tick"), Change("held_takes_job", True))
    assert inert(plain, failure) and inert(zoomed, failure + (Change("failure_cap", "none"),))
    assert not inert(replied, failure)
    failed = Scenario(constants_dict(SMALL), [*messages, {"event": "fail", "node": [0, 0]}])
    assert not inert(failed, failure[:1])
    ended = Scenario(
        constants_dict(SMALL), [*messages, {"event": "end", "node": [0, 0], "line": " "}]
    )
    assert inert(ended, failure) and not inert(ended, failure, Profile(trim_lines=True))
    # The options of issue 35: the chooser's cut, ellipsis and running out of
    # replies; where a node let go queues; the zoom shapes. A line's limit and
    # white space judge given lines too: checked again.
    assert inert(plain, (Change("cut", "word"), Change("ellipsis", "…")))
    assert not inert(replied, (Change("replies_out", "asks"),))
    assert inert(plain, (Change("retried", "first"),))
    assert not inert(failed, (Change("retried", "first"),))
    shapes = (Change("zoom_one", "headed"), Change("zoom_halves", "bare"))
    assert inert(plain, shapes + (Change("zoom_unbuilt", "refused"),))
    assert not inert(zoomed, shapes[1:])
    for limit in (
        Change("tolerance", 1.25),
        Change("overlong", "kept"),
        Change("trim_set", "ascii"),
    ):
        assert not inert(ended, (limit,))


def test_a_kept_transcript_stands_in_only_where_the_options_it_adds_cannot_matter() -> None:
    """`retry: tick` alone has no transcript; the partial profile adds
    `empty_reply: fails`, which only an `end` with replies can make matter:
    its transcript stands in for a scenario without replies, and answers
    every line as the model under `retry: tick` does; not for one with them."""
    tick = Profile(retry="tick")
    partial = Profile(retry="tick", empty_reply="fails")
    kept = [SPEC, partial]
    path = CORPUS / "refused_retry_waits_0.jsonl"
    failing = scenario_format.read(path)
    assert any(e["event"] == "fail" for e in failing.events)
    assert not any("replies" in e for e in failing.events)
    assert stand_in(failing, tick, kept) == partial
    stored = expected_path(path, partial)
    answered = [(e.line, e.expected) for e in from_transcript(failing, stored)]
    assert answered == [(e.line, e.expected) for e in from_model(failing, tick, strict=False)]
    replied = scenario_format.read(CORPUS / "chooser_0.jsonl")
    assert stand_in(replied, tick, kept) == tick
    assert stand_in(replied, partial, kept) == partial
    assert stand_in(failing, Profile(retry="tick", calls="self"), kept).calls == "self"
