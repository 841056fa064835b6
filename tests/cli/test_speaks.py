"""What `corpus`, `show` and the known-failures lists say (issue 22, "The
CLI speaks as installed"): --engine required, the reference engine by name,
a run that stops at an engine that cannot start, FAIL lines with both values
and the SPEC section (the expected values read from SPEC, not from a run),
summaries in words, `show NAME`, and known failures per outcome, written
and shrunk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bridge import cli
from bridge.checking.coverage import Coverage
from bridge.checking.verdict import Verdict
from bridge.cli.options import ENGINES
from bridge.runs.tally import Tally
from tests.bridge.test_corpus_cli import copy_corpus
from tests.cli.helpers import run, wrong
from tests.scenarios.test_format import CONSTANTS

ROOT = Path(__file__).resolve().parents[2]
HEADER = {"format": "optchat-scenario/2", "generator": "test", "seed": 1, "constants": CONSTANTS}
QUICK = ["--shrink-tries", "0", "--shrink-seconds", "0.001"]
"""A FAIL's line and verdict, nothing shrunk and no rule slip tried on it."""


def scenario(folder: Path, name: str, *events: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (HEADER, *events)) + "\n")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["corpus", "--only", "empty_chat"],
        ["compare", "empty_chat"],
        ["replay", "empty_chat"],
        ["fuzz", "--histories", "1"],
        ["diagnose", "--only", "empty_chat"],
    ],
    ids=lambda args: args[0],
)
def test_a_run_without_an_engine_is_a_usage_error_in_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """No command checks an engine nobody named, not even the reference one."""
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err == f"optchat-spec {args[0]}: --engine is required: {ENGINES}\n"


def test_the_reference_engine_is_known_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["corpus", "--engine", "reference", "--only", "zoom_*", "--only", "empty_chat"]
    code, out, _ = run([*args, "--jobs", "1"], capsys)
    assert code == 0
    assert out.splitlines()[-1] == (
        "ALL 4 SCENARIOS AGREE; compared 1.0000 of the events (engine reference; profile: SPEC)"
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_engine_that_cannot_start_stops_the_run_after_three(
    jobs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["corpus", "--engine", "no-such-engine-here", "--jobs", jobs]
    if jobs == "1":
        code, out, err = run(args, capsys)
    else:
        # A command of its own, as a user runs it: the pool of `--jobs 2` forks
        # this process, which under pytest-xdist holds threads of its own.
        done = subprocess.run(
            [sys.executable, "-m", "bridge", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 2
    assert [line for line in out.splitlines() if line.startswith("[")] == [
        line for line in out.splitlines() if " FAULT " in line
    ]
    assert sum(" FAULT " in line for line in out.splitlines()) == 3
    (said,) = err.splitlines()
    assert "the engine failed at its start on each of the first 3 scenarios, stopping" in said
    assert "no-such-engine-here" in said


def test_an_engine_failing_later_is_not_stopped_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Faults past the header are the engine's answers, one per scenario."""
    folder = tmp_path / "s"
    for name in "abcd":
        scenario(folder, name, {"event": "message", "kind": "user", "text": "hi"})
    faulty = ROOT / "tests" / "bridge" / "engines" / "faulty.py"
    engine = f"env PYTHONPATH={ROOT} {sys.executable} {faulty} crash 0"
    code, out, _ = run(["corpus", str(folder), "--engine", engine, "--jobs", "1"], capsys)
    assert code == 2 and sum(line.startswith("[") for line in out.splitlines()) == 4
    assert out.splitlines()[-1].startswith("4 scenarios: 4 FAULT; ")


# One user message of 1000 bytes, over NODE (512): SPEC 2 says its leaf needs
# a compaction call, so SPEC 3 says the view is that one unbuilt leaf, of the
# placeholder's 29 bytes, and SPEC 4 that the queue holds it, (0, 0). A
# `settle` with no turn waiting breaks `settle_needs_wait` (SPEC 4.1).
FAIL_LINES = [
    ("size", [], "size differs, expected 29, found 30 (SPEC 3)"),
    ("queue", [], "queue differs, expected [[0, 0]], found [] (SPEC 4)"),
    (
        "refused",
        [{"event": "settle", "refused": "settle_needs_wait"}],
        'refused differs, expected "settle_needs_wait", found (absent) '
        '(rule "settle_needs_wait" of SPEC 4.1)',
    ),
]
"""Each FAIL line ends so; the event before it is the JSON of the file."""

EVENTS_SAID = [
    '{"event": "message", "kind": "user", "size": 1000}',
    '{"event": "message", "kind": "user", "size": 1000}',
    '{"event": "settle"}',
]


@pytest.mark.parametrize(("field", "more", "said"), FAIL_LINES, ids=[f[0] for f in FAIL_LINES])
def test_a_fail_line_gives_both_values_and_the_spec_section(
    field: str,
    more: list[dict[str, object]],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    events = [{"event": "message", "kind": "user", "size": 1000}, *more]
    path = scenario(tmp_path / "s", "one", *events)
    args = ["corpus", str(path), "--engine", wrong(field), "--jobs", "1", *QUICK]
    code, out, _ = run(args, capsys)
    assert code == 1
    lines = out.splitlines()
    fail = lines.index(next(line for line in lines if " FAIL " in line))
    assert lines[fail + 1].endswith(said), lines[fail + 1]
    at = len(events) - 1
    event = EVENTS_SAID[[f[0] for f in FAIL_LINES].index(field)]
    assert lines[fail + 1].strip().startswith(f"event {at} (file line {at + 2}): {event}: ")
    # The divergence is at the last event: every event before it, and it, was compared.
    assert lines[-1] == (
        f"1 scenario: 1 FAIL from 1 cause; compared 1.0000 of the events "
        f"(engine {wrong(field)}; profile: SPEC)"
    )


def verdicts(*statuses: str) -> list[Verdict]:
    return [Verdict(Path(f"s{k}.jsonl"), status, 0.0) for k, status in enumerate(statuses)]


ALL_COMPARED = Coverage(events=8, compared=8, ended=1)


def test_summaries_say_what_happened() -> None:
    def said(statuses: tuple[str, ...], known: dict[str, str]) -> str:
        return Tally.of(verdicts(*statuses), known, ALL_COMPARED).summary("e", "profile: SPEC")

    whole = "; compared 1.0000 of the events (engine e; profile: SPEC)"
    assert said(("ok",), {}) == "THE ONE SCENARIO AGREES" + whole
    assert said(("ok", "ok"), {}) == "ALL 2 SCENARIOS AGREE" + whole
    listed = {"s0": "FAIL", "s1": "FAIL", "s2": "FAULT"}
    assert said(("FAIL", "FAIL", "FAULT"), listed) == (
        "AS LISTED: of 3 scenarios, none agrees and 3 fail as the known failures say" + whole
    )
    assert said(("ok", "FAIL"), {"s1": "FAIL"}) == (
        "AS LISTED: of 2 scenarios, 1 agrees and 1 fails as the known failures say" + whole
    )
    # The outcomes in one order, whatever order the scenarios ended in.
    assert said(("FAIL", "ok", "FAIL"), {}) == "3 scenarios: 1 ok, 2 FAIL" + whole
    tally = Tally.of(verdicts("FAIL"), {}, ALL_COMPARED)
    assert "declared deviations: trim_lines" in tally.summary(
        "e", "declared deviations: trim_lines"
    )
    assert "agrees" not in tally.summary("e", "profile: SPEC")


def test_a_run_is_green_only_when_it_compared_enough() -> None:
    """No green on nothing: 0 only when events were compared, at least
    --min-compared of them; the last line states the fraction beside the
    verdict (cut, never rounded up, so it can be given back as the floor)."""

    def judged(coverage: Coverage, floor: float = 0.0, *statuses: str) -> tuple[int, str]:
        tally = Tally.of(verdicts(*(statuses or ("ok",))), {}, coverage, floor)
        return tally.code(), tally.summary("e", "profile: SPEC")

    two_thirds = Coverage(events=3, compared=2, ended=1)
    assert judged(two_thirds) == (
        0,
        "THE ONE SCENARIO AGREES; compared 0.6666 of the events (engine e; profile: SPEC)",
    )
    assert judged(two_thirds, 0.6666)[0] == 0
    assert judged(two_thirds, 0.6667) == (
        1,
        "BELOW --min-compared 0.6667: compared 0.6666 of the events; "
        "THE ONE SCENARIO AGREES (engine e; profile: SPEC)",
    )
    skipped = Coverage(events=6422, skipped=6422)
    assert judged(skipped, 0.0, "ok", "SKIPPED") == (
        1,
        "NOTHING COMPARED: 0 of 6,422 events; 2 scenarios: 1 ok, 1 SKIPPED "
        "(engine e; profile: SPEC)",
    )
    # The empty chat compares no event, but its final state: enough, once replayed to its end.
    assert judged(Coverage(ended=1))[0] == 0
    assert judged(Coverage(), 0.0, "SKIPPED")[0] == 1
    # A fault stays a fault; a shard leaves what it compared to the merged report.
    assert judged(skipped, 0.0, "FAULT")[0] == 2
    shard = Tally.of(verdicts("SKIPPED"), {}, skipped, 0.5, shard=True)
    assert shard.code() == 0 and "(merge-reports judges the whole run's)" in shard.summary("e", "")


def test_show_takes_a_bundled_scenarios_name_and_writes_it_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["show", "zoom_1"], capsys)
    assert (code, out) == (0, "wrote zoom_1.html\n")
    assert "zoom_1" in (tmp_path / "zoom_1.html").read_text()
    code, _, err = run(["show", "no_such_scenario"], capsys)
    assert code == 2 and "no such file, nor a scenario of the bundled corpus" in err


def test_every_option_of_every_command_says_what_it_is_and_its_default() -> None:
    top = cli.parser()
    commands = next(a for a in top._actions if a.dest == "command").choices
    for name, command in commands.items():
        for action in command._actions:
            if action.dest == "help" or name == "laws":
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            if action.option_strings and action.dest != "engine" and action.nargs != 0:
                assert "default" in action.help, f"{name} {action.option_strings}: no default"


def known(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "known.txt"
    path.write_text(text)
    return path


def test_known_failures_say_which_outcome_is_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, ["random_00", "empty_chat"])
    base = ["corpus", str(folder), "--jobs", "1", *QUICK, "--known-failures"]
    # Today's format: a bare name is a FAIL.
    for text in ("random_00  # wrong on purpose\n", "random_00 fail\n"):
        code, out, _ = run([*base, str(known(tmp_path, text)), "--engine", wrong("size")], capsys)
        assert code == 0 and "AS LISTED: of 2 scenarios, 1 agrees and 1 fails" in out
    # Listed as a fault, it fails instead: a divergence.
    code, out, _ = run(
        [*base, str(known(tmp_path, "random_00 fault\n")), "--engine", wrong("size")], capsys
    )
    assert code == 1 and "1 FAIL" in out.splitlines()[-1]
    # Faults listed as faults, and skips as skips: as listed, but nothing was
    # compared, so the run is not green (a list of everything checks nothing).
    both = known(tmp_path, "random_00 fault\nempty_chat fault\n")
    code, out, _ = run([*base, str(both), "--engine", "no-such-engine-here"], capsys)
    last = out.splitlines()[-1]
    assert code == 1 and last.startswith("NOTHING COMPARED: 0 of ")
    assert "none agrees and 2 fail as the known failures say" in last
    skips = known(tmp_path, "random_00 skip\nempty_chat skip\n")
    code, out, _ = run([*base, str(skips), "--engine", wrong("skip")], capsys)
    last = out.splitlines()[-1]
    assert code == 1 and last.startswith("NOTHING COMPARED: 0 of ")
    assert "none agrees and 2 are skipped as the known failures say" in last
    # A listed scenario that agrees is fixed: take it off.
    listed = known(tmp_path, "empty_chat\n")
    code, out, _ = run([*base, str(listed), "--engine", "reference"], capsys)
    assert code == 1 and f"fixed: remove it from {listed}" in out
    # A line that is not one: one line naming file and line.
    bad = known(tmp_path, "# fine\nrandom_00 maybe\n")
    code, out, err = run([*base, str(bad), "--engine", "reference"], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and f"{bad}:2:" in err


def test_a_written_known_failures_list_only_shrinks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, ["random_00", "zoom_1", "empty_chat"])
    listed = tmp_path / "known.txt"
    base = ["corpus", str(folder), "--jobs", "1", *QUICK]
    code, out, _ = run(
        [*base, "--engine", wrong("size"), "--write-known-failures", str(listed)], capsys
    )
    assert code == 0 and f"wrote {listed}: 2 known failures" in out
    names = [line.split() for line in listed.read_text().splitlines() if not line.startswith("#")]
    assert names == [["random_00", "fail"], ["zoom_1", "fail"]]
    code, out, _ = run([*base, "--engine", wrong("size"), "--known-failures", str(listed)], capsys)
    assert code == 0 and "none agrees" not in out and "2 fail as the known failures say" in out
    # zoom_1 fixed (it is left out of the run with --skip: listed, not run, kept);
    # random_00 still fails: the list keeps it, and adds nothing.
    listed.write_text("random_00\n")
    both = ["--known-failures", str(listed), "--write-known-failures", str(listed)]
    code, out, _ = run([*base, "--engine", wrong("size"), *both], capsys)
    assert code == 1 and "zoom_1.jsonl" in out and "1 FAIL" in out.splitlines()[-1]
    assert [line.split() for line in listed.read_text().splitlines()[1:]] == [["random_00", "fail"]]
    code, out, _ = run([*base, "--engine", "reference", *both], capsys)
    assert code == 0 and f"fixed: random_00, taken off {listed}" in out
    assert listed.read_text().splitlines()[1:] == []
