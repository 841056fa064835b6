"""`python -m bridge fuzz`: nothing found against the engine, a planted break
found, shrunk, written (its page titled by its file) and replayed by
`compare`, kept in an example database and found there first by the next
search, which says so; engine faults and missing Hypothesis as exit 2
without a traceback, and the same seed giving the same histories."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bridge import cli
from bridge.checking.compare import run
from bridge.formats.profile import SPEC
from bridge.runs.corpus import Options, make_engine
from bridge.wire.stream import from_model
from scenarios import format as scenario_format
from scenarios.database import without_password
from tests.bridge.helpers import bug_in_process

ROOT = Path(__file__).resolve().parents[2]
ENGINES = Path(__file__).parent / "engines"
LATE_CAP = f"{sys.executable} {ENGINES / 'failure_cap_late.py'}"
"""impl.protocol whose failure cap builds a node one failure late (planted)."""


@pytest.fixture
def engine_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Protocol engines run as scripts find the project's packages."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


@pytest.fixture(autouse=True)
def late_cap_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """LATE_CAP's engine runs in this process (`with_bug`)."""
    bug_in_process(monkeypatch, LATE_CAP, "failure_cap_late")


def fuzz(*args: str) -> int:
    return cli.main(["fuzz", *args])


def test_no_divergence_against_the_engine_ends_on_time_with_its_throughput(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--engine", "impl", "--seconds", "0.3", "--seed", "7", "--regressions", str(tmp_path)]
    code = fuzz(*args)
    out = capsys.readouterr().out
    assert code == 0, out
    throughput = re.search(r"^throughput: (\d+) histories, (\d+) events in ([\d.]+) s", out, re.M)
    assert throughput is not None, out
    # A starved machine may not finish one history in 0.3 s: the counts are not asserted.
    histories, events, seconds = (float(n) for n in throughput.groups())
    assert 0.3 <= seconds < 0.3 + 30  # it ran its time, and stopped after the history under way
    assert re.search(
        rf"^no divergence in {histories:.0f} histories, {events:.0f} events", out, re.M
    )
    assert "seed 7" in out and "--seed 7" in out
    assert not list(tmp_path.iterdir())  # nothing written


def summary(out: str) -> str:
    found = re.search(r"^no divergence in (\d+ histories, \d+ events)", out, re.M)
    assert found is not None, out
    return found.group(1)


def test_the_same_seed_gives_the_same_histories(capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for seed in ("11", "11", "12"):
        assert fuzz("--engine", "model", "--histories", "5", "--seed", seed) == 0
        runs.append(summary(capsys.readouterr().out))
    assert runs[0] == runs[1]
    assert runs[0].startswith("5 histories")
    assert runs[2] != runs[0]  # another seed, other histories (events counted differ)


@pytest.mark.usefixtures("engine_path")
def test_histories_follow_the_profile_the_engine_declares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The deviant engine (calls: self, kind words, trimmed lines, ...) agrees
    only with a model that runs under its declared profile."""
    deviant = ROOT / "scenarios" / "profiles" / "deviant.json"
    engine = f"{sys.executable} -m impl.protocol --profile {deviant}"
    assert fuzz("--engine", engine, "--histories", "15", "--seed", "3") == 0
    out = capsys.readouterr().out
    assert "declared deviations" in out and "calls self" in out
    assert re.search(r"^no divergence in 15 histories", out, re.M)


@pytest.mark.usefixtures("engine_path")
def test_a_planted_break_is_found_shrunk_written_and_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    found, kept = tmp_path / "found", tmp_path / "kept"
    code = fuzz(
        *("--engine", LATE_CAP, "--histories", "200", "--seed", "2", "--database", str(kept)),
        *("--max-causes", "1"),
        # Its 82 events shrink to 3 within 121 replays (61 leave 25): the
        # budget counts replays, so a slow machine gets the same scenario.
        *("--shrink-tries", "150", "--regressions", str(found)),
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"replaying the histories kept in the example database {kept} first" in out
    assert "the example database: it keeps no history for this search yet" in out
    assert re.search(r"^throughput: \d+ histories, \d+ events", out, re.M)
    (written,) = (found / "scenarios").glob("fuzz-2-*.jsonl")
    assert f"<title>{written.name}</title>" in written.with_suffix(".html").read_text()
    again = re.search(r"^repeat the search: .*$", out, re.M)
    assert again is not None and f" --database {kept} " in again.group(0)
    assert (found / "expected" / "scenarios" / f"{written.stem}.jsonl.gz").exists()
    scenario = scenario_format.read(written)
    assert 1 <= len(scenario.events) <= 10
    # The break is in the failure cap: the scenario fails a call.
    assert any(event["event"] == "fail" for event in scenario.events)
    report = re.search(r"^DIVERGENCE in .*\n  field .*$", out, re.M)
    assert report is not None and str(written) in report.group(0)
    assert f"python -m bridge compare {written} --engine" in out

    # The unbroken engine agrees with the model on it; the planted one does not.
    subject = make_engine(Options(f"{sys.executable} -m impl.protocol"))
    try:
        ready = subject.start(scenario)
        assert run(from_model(scenario, SPEC, strict=True), subject, ready).divergence is None
    finally:
        subject.close()

    code = cli.main(
        ["compare", str(written), "--engine", LATE_CAP]
        + ["--regressions", str(tmp_path / "again"), "--shrink-seconds", "1"]
    )
    again = capsys.readouterr().out
    assert code == 1
    replayed = re.search(r"^DIVERGENCE in .*\n  field .*$", again, re.M)
    assert replayed is not None and replayed.group(0) == report.group(0)

    # Another seed, the database named by the variable: what it kept is found
    # first (the search stops there: it would go on for other causes).
    monkeypatch.setenv("OPTCHAT_DATABASE", str(kept))
    code = fuzz(
        *("--engine", LATE_CAP, "--histories", "200", "--seed", "3", "--max-causes", "1"),
        *("--shrink-tries", "1", "--regressions", str(tmp_path / "next")),
    )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "the example database: 1 history replayed; history 1 still diverges" in out
    assert "at history 1, one kept in the example database" in out
    assert ' --database "$OPTCHAT_DATABASE" ' in out


@pytest.mark.usefixtures("engine_path")
@pytest.mark.parametrize(
    ("engine", "said"),
    [
        ("/no/such/engine --flag", "cannot be started"),
        (f"{sys.executable} {ENGINES / 'faulty.py'} crash 2", "closed its output"),
    ],
)
def test_an_engine_fault_is_exit_2_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], engine: str, said: str
) -> None:
    code = fuzz("--engine", engine, "--seconds", "20", "--regressions", str(tmp_path))
    captured = capsys.readouterr()
    assert code == 2
    assert "ENGINE FAULT (not a divergence)" in captured.err and said in captured.err
    assert "Traceback" not in captured.out + captured.err.split("its stderr")[0]
    assert "DIVERGENCE" not in captured.out


def test_without_hypothesis_fuzz_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # import hypothesis fails
    assert fuzz("--engine", "impl", "--seconds", "1") == 2
    err = capsys.readouterr().err
    assert "Hypothesis" in err and "laws" in err and "Traceback" not in err


@pytest.mark.parametrize("bad", [["--seconds", "0"], ["--histories", "-1"], ["--seed", "x"]])
def test_bad_options_are_usage_errors(bad: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        fuzz("--engine", "impl", *bad)
    assert exit.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_database_s_password_is_not_printed() -> None:
    assert without_password("redis://:s3cret@db.example:6379/0") == "redis://***@db.example:6379/0"
    assert without_password("rediss://me:s3cret@db:1/2") == "rediss://***@db:1/2"
    assert without_password("/a/folder@x") == "/a/folder@x"
