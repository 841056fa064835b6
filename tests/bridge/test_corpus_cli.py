"""The corpus runner for CI: which scenarios it runs, known failures both
ways, JUnit XML and JSON reports a parser reads, regressions kept out of
every corpus, and stale transcripts refused."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import bridge
import bridge.cli as cli
import bridge.runs.corpus as corpora
from bridge import __version__
from bridge.formats.kit import CORPUS
from bridge.formats.layout import expected_path, slug, unique_name
from bridge.runs.progress import Heartbeat

REPORT_SCHEMA = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text())

SMALL = ["random_00", "random_11", "zoom_1", "refused_kind_0", "empty_chat"]


def copy_corpus(into: Path, names: list[str]) -> Path:
    """Some bundled scenarios, with their transcripts, in a corpus of our own."""
    folder = into / "mine"
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(CORPUS / f"{name}.jsonl", folder / f"{name}.jsonl")
        stored = expected_path(folder / f"{name}.jsonl")
        stored.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(expected_path(CORPUS / f"{name}.jsonl"), stored)
    return folder


def tamper(transcript: Path) -> None:
    """Change one recorded size, as a wrong expectation would."""
    lines = gzip.decompress(transcript.read_bytes()).split(b"\n")
    lines[3] = lines[3].replace(b'"size":', b'"size":1', 1)
    transcript.write_bytes(gzip.compress(b"\n".join(lines)))


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def test_a_folder_runs_its_own_scenarios_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, SMALL)
    code, out = run(["corpus", str(folder), "--engine", "impl", "--jobs", "1"], capsys)
    assert code == 0 and f"ALL {len(SMALL)} SCENARIOS AGREE" in out
    code, out = run(
        ["corpus", str(folder), "--only", "random_*", "--skip", "*_11", "--engine", "impl"],
        capsys,
    )
    assert code == 0 and "THE ONE SCENARIO AGREES" in out and "random_00" in out


def test_jobs_take_the_largest_scenarios_first_and_report_in_name_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --jobs, the pool is fed the largest files first (so no long
    scenario runs alone at the end) and verdicts print as they come; the
    reports still list the scenarios in the order named."""
    folder = copy_corpus(tmp_path, SMALL)
    fed: list[str] = []

    class Backwards:
        """A pool that runs its jobs here and answers last job first."""

        def __init__(self, processes: int, initializer: object, initargs: object = ()) -> None:
            assert processes == 2

        def __enter__(self) -> Backwards:
            return self

        def __exit__(self, *_: object) -> None:
            return None

        def imap_unordered(self, function: Any, work: list[Any]) -> Any:
            fed.extend(path.name for path, _ in work)
            answers = iter([function(job) for job in reversed(work)])

            class Results:
                """As a pool's results: each in turn, `next` with a timeout."""

                def next(self, timeout: float | None = None) -> Any:
                    return next(answers)

            return Results()

        def close(self) -> None:
            """No job is left: the workers would end."""

        def join(self) -> None:
            """Nothing to wait for."""

    monkeypatch.setattr(corpora, "Pool", Backwards)
    report = tmp_path / "report.json"
    code, out = run(
        ["corpus", str(folder), "--engine", "impl", "--jobs", "2", "--json", str(report)], capsys
    )
    assert code == 0 and f"ALL {len(SMALL)} SCENARIOS AGREE" in out
    by_size = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_size, reverse=True)
    assert fed == [p.name for p in by_size]
    printed = [line.split()[2] for line in out.splitlines() if line.startswith("[")]
    assert printed == fed[::-1]
    listed = [case["scenario"] for case in json.loads(report.read_text())["scenarios"]]
    assert listed == sorted(f"{name}.jsonl" for name in SMALL)


def test_known_failures_both_ways_and_reports_for_ci(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, SMALL)
    tamper(expected_path(folder / "random_00.jsonl"))
    known = tmp_path / "known.txt"
    junit, report = tmp_path / "out" / "junit.xml", tmp_path / "out" / "report.json"
    base = ["corpus", str(folder), "--engine", "impl", "--jobs", "1"]
    # No shrink and no rule slip tried after the replay: no report here reads a cause.
    base += ["--shrink-tries", "0", "--shrink-seconds", "0.001"]
    pages = tmp_path / "pages"
    code, out = run(
        [*base, "--junit-xml", str(junit), "--json", str(report), "--report", str(pages)], capsys
    )
    assert code == 1 and "1 FAIL" in out
    # One page per failing scenario, naming the diverging field and event,
    # with the command that repeats it; and an index of every scenario.
    page_name = f"{unique_name(folder / 'random_00.jsonl', 'impl')}.html"
    assert sorted(p.name for p in pages.glob("*.html")) == sorted(["index.html", page_name])
    html = (pages / page_name).read_text()
    assert "DIVERGENCE between expected and impl" in html and "size" in html
    assert f"compare {folder / 'random_00.jsonl'} --engine impl" in html
    index = (pages / "index.html").read_text()
    assert index.count("<tr><td>") == len(SMALL) and f'href="{page_name}"' in index
    assert "field <code>size</code> (SPEC 3) at event 2 (file line 4)" in index
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == str(len(SMALL)) and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == set(SMALL)
    assert cases["random_00"].get("classname") == "mine.random"
    assert cases["refused_kind_0"].get("classname") == "mine.refused"
    failure = cases["random_00"].find("failure")
    assert failure is not None and "size differs" in (failure.get("message") or "")
    assert "(SPEC 3)" in (failure.get("message") or "")
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert said["runner_version"] == __version__ and said["engine_name"] == "optchat-spec impl"
    assert json.loads(said["profile"])["calls"] == "driven"
    found = json.loads(report.read_text())
    jsonschema.validate(found, REPORT_SCHEMA)
    assert found["runner_version"] == __version__ and found["engine_name"] == "optchat-spec impl"
    assert found["profile"]["calls"] == "driven"
    statuses = {case["scenario"]: case["status"] for case in found["scenarios"]}
    assert statuses["random_00.jsonl"] == "FAIL" and found["counts"]["FAIL"] == 1
    failed = next(c for c in found["scenarios"] if c["status"] == "FAIL")
    divergence = failed["divergence"]
    assert divergence["field"] == "size" and divergence["position"] == 2
    assert divergence["spec_section"] == "SPEC 3" and failed["page"] == page_name
    assert failed["family"] == "random"

    known.write_text("# tampered on purpose\nrandom_00\n")
    code, out = run([*base, "--known-failures", str(known)], capsys)
    assert code == 0 and "AS LISTED: of 5 scenarios, 4 agree and 1 fails as the known" in out
    known.write_text("random_00\nrandom_11\n")
    code, out = run([*base, "--known-failures", str(known)], capsys)
    assert code == 1 and "UNEXPECTED PASS" in out


def test_a_stale_transcript_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = copy_corpus(tmp_path, ["random_00"])
    scenario = folder / "random_00.jsonl"
    scenario.write_bytes(scenario.read_bytes().replace(b'"size": 3', b'"size": 4', 1))
    code, out = run(["corpus", str(folder), "--engine", "impl"], capsys)
    assert code == 2 and "made from another version of" in out


def test_compare_writes_regressions_outside_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, ["random_00"])
    tamper(expected_path(folder / "random_00.jsonl"))
    monkeypatch.chdir(tmp_path)
    code, out = run(
        ["compare", str(folder / "random_00.jsonl"), "--engine", "impl", "--shrink-seconds", "5"],
        capsys,
    )
    assert code == 1
    written = list((tmp_path / "optchat-regressions" / "scenarios").glob("*.jsonl"))
    assert len(written) == 1 and "impl" in written[0].name
    # The divergence shown beside the shrunk scenario, with its shrunk events.
    html = written[0].with_suffix(".html").read_text()
    assert "DIVERGENCE between model and impl" in html and "shrunk" in html.lower()
    assert f"the divergence shown: optchat-regressions/scenarios/{written[0].stem}.html" in out
    assert sorted(p.name for p in folder.glob("*.jsonl")) == ["random_00.jsonl"]


def test_names_never_collide_between_engines() -> None:
    first = slug("my-engine --bridge --with-a-very-long-option-name-that-goes-on-and-on one")
    second = slug("my-engine --bridge --with-a-very-long-option-name-that-goes-on-and-on two")
    assert first != second


@pytest.mark.parametrize(
    "args",
    [
        ["corpus", "/no/such/folder"],
        ["corpus", "--only", "nothing-matches-this"],
        ["corpus", "--known-failures", "/no/such/file"],
        ["corpus", "--profile", "/no/such/profile.json"],
        ["corpus", "--jobs", "two"],
        ["frobnicate"],
        [],
    ],
)
def test_command_line_mistakes_exit_2_without_a_traceback(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m bridge ARGS` in this process (bridge/__main__.py exits
    with `main`'s code; argparse's SystemExit taken as the interpreter takes
    it): an exception a traceback would show fails the test."""
    try:
        code = cli.main(args)
    except SystemExit as ended:
        code = ended.code
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "Traceback" not in out + err


def test_the_heartbeat_speaks_during_one_long_event(capsys: pytest.CaptureFixture[str]) -> None:
    """A replay stuck in one event (a model batch over a huge view) still says
    every period how far it is; a quiet one says nothing."""
    with Heartbeat("big.jsonl", 500, quiet=False, every=0.05) as beat:
        beat(42)
        time.sleep(0.5)  # about ten periods: three lines even on a loaded machine
    said = capsys.readouterr().err.splitlines()
    assert len(said) >= 3
    assert all(line.startswith("  ... big.jsonl: 42/500 answers") for line in said)
    with Heartbeat("big.jsonl", 500, quiet=True, every=0.05) as beat:
        time.sleep(0.2)
    assert capsys.readouterr().err == ""


def test_every_run_s_repeated_command_names_the_runner_as_the_user_started_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`diagnose` and `fuzz` build their Options without naming the runner:
    the command their reports repeat is still the installed `optchat-spec`
    the user ran (here by its full path, since it is not the one on PATH)."""
    installed = tmp_path / "bin" / "optchat-spec"
    installed.parent.mkdir()
    installed.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(installed), "diagnose"])
    options = corpora.Options("impl")
    assert options.program == str(installed)
    assert corpora.reproduction(Path("a b.jsonl"), options) == (
        f"{installed} compare 'a b.jsonl' --engine impl"
    )
