"""Hostile text in every untrusted input of a report (the scenario's header,
events and file name, the profile, the engine's answers and stderr) reaches
every kind of page escaped: opened in headless Chromium, no dialog opens,
nothing runs but the page's own script, and the console stays silent. The
JSON and JUnit reports of the same run stay whole and well-formed (issue 25)."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import bridge
import bridge.cli as cli
from scenarios.format import Scenario, write
from scenarios.strategies import constants_dict
from tests.bridge.browser import needs_chromium, run_chromium, visit
from tests.bridge.helpers import SMALL, InProcessExample, in_process

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = Path(__file__).resolve().parent / "engines" / "payloads.py"
REPORT_SCHEMA = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text())

PAYLOAD = (
    "<script>alert('seed')</script><img src=x onerror=alert(1)><!--<script></script>]]>"
    "\u2028\u2029\x00\x01\x1b[31m&amp;"
)
"""Text that breaks out of an HTML text node, an attribute, a script
element's JSON or a CDATA section, with JavaScript's line terminators, NUL
and control characters."""
ENGINE_PAYLOAD = PAYLOAD + "\ud800"
"""What the engine says: a lone surrogate too (JSON can carry one)."""
WORD = "<script>alert('profile')</script><img src=x onerror=alert(2)>"
"""The profile's word for `user` (a kind word is one line without `: `)."""
NAME = "x<img src=x onerror=alert(3)>\x01"
"""A scenario file's stem (no `/` in a file name)."""


def hostile_scenario() -> Scenario:
    events = [
        {"event": "message", "kind": PAYLOAD, "text": PAYLOAD, "refused": "kind"},
        {"event": "message", "kind": "user", "text": PAYLOAD},
        {"event": "message", "kind": "user", "text": "a\ud800", "refused": "utf8"},
        {"event": "message", "kind": "unii", "text": "ok"},
    ]
    notes = {"family": PAYLOAD, PAYLOAD: [PAYLOAD]}
    return Scenario(constants_dict(SMALL), events, PAYLOAD, 7, notes)


@dataclass(frozen=True)
class Hostile:
    """A hostile scenario in a folder of its own, a hostile profile, an engine
    command whose answers and stderr carry the payload, and where reports go."""

    scenario: Path
    profile: Path
    engine: str
    out: Path


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Hostile:
    """The hostile inputs, with the engine's payload in its environment."""
    monkeypatch.setenv("OPTCHAT_PAYLOAD", json.dumps(ENGINE_PAYLOAD))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.chdir(tmp_path)
    scenario = tmp_path / "in" / f"{NAME}.jsonl"
    write(hostile_scenario(), scenario)
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"kind_words": {"user": WORD}}))
    engine = f"{sys.executable} {WRAPPER} --profile {profile}"
    return Hostile(scenario, profile, engine, tmp_path / "out")


class Dangerous(HTMLParser):
    """What in a DOM could run: script elements, event handler attributes,
    elements that load something."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts = 0
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        handlers = [name for name, _ in attrs if name.startswith("on")]
        if handlers or tag in ("img", "iframe", "object", "embed", "link", "base", "form"):
            self.found.append(f"<{tag} {handlers}>")


def check_page(page: Path, own_scripts: int) -> str:
    """Open a page in Chromium: no dialog, error, policy violation or console
    message, and no script or handler but the page's own; its DOM."""
    seen = visit(page)
    assert seen.probe["errors"] == [], page.name
    assert seen.console == [], page.name
    dangerous = Dangerous()
    dangerous.feed(seen.dom)
    assert dangerous.found == [], page.name
    assert dangerous.scripts == own_scripts + 1, page.name  # and the probe
    return seen.dom


@needs_chromium
@pytest.mark.more  # three pages opened in headless Chromium: `make test-more`
def test_show_pages_escape_every_field(
    hostile: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario, profile, engine, out = hostile.scenario, hostile.profile, hostile.engine, hostile.out
    base = ["show", str(scenario), "--profile", str(profile)]
    assert cli.main([*base, "-o", str(out / "plain.html")]) == 0
    assert cli.main([*base, "--engine", str(engine), "-o", str(out / "engine.html")]) == 0
    assert cli.main([*base, "-o", str(out / "saw.svg")]) == 0
    assert "Traceback" not in "".join(capsys.readouterr())
    plain = check_page(out / "plain.html", 2)
    assert "alert('seed')" in plain and "alert('profile')" in plain  # shown as text
    versus = check_page(out / "engine.html", 2)
    assert "DIVERGENCE" in versus and "refused" in versus
    picture = ET.parse(out / "saw.svg").getroot()
    assert not [e for e in picture.iter() if e.tag.endswith("script")]
    assert not [a for e in picture.iter() for a in e.attrib if a.startswith("on")]
    logged = run_chromium(out / "saw.svg", "--enable-logging=stderr", "--v=0", "--dump-dom")
    assert ":CONSOLE" not in logged.stderr


@needs_chromium
@pytest.mark.more  # three pages opened in headless Chromium: `make test-more`
def test_compare_and_corpus_pages_and_reports_escape_every_field(
    hostile: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shrinking left out (one replay; none in `corpus`, nor a rule slip
    tried): the hostile text stays whole in what the pages show."""
    scenario, profile, engine, out = hostile.scenario, hostile.profile, hostile.engine, hostile.out
    regressions = out / "regressions"
    compared = [
        "compare", str(scenario), "--engine", str(engine), "--profile", str(profile),
        "--live-model", "--regressions", str(regressions), "--shrink-seconds", "5",
        "--shrink-tries", "1",
    ]  # fmt: skip
    assert cli.main(compared) == 1
    (page,) = (regressions / "scenarios").glob("*.html")
    check_page(page, 2)
    report, junit, json_report = out / "report", out / "junit.xml", out / "report.json"
    corpus = [
        "corpus", str(scenario.parent), "--engine", str(engine), "--profile", str(profile),
        "--live-model", "--jobs", "1", "--report", str(report), "--junit-xml", str(junit),
        "--json", str(json_report), "--shrink-tries", "0", "--shrink-seconds", "0.001",
    ]  # fmt: skip
    assert cli.main(corpus) == 1
    assert "Traceback" not in "".join(capsys.readouterr())
    (page,) = (p for p in report.glob("*.html") if p.name != "index.html")
    assert page.name.startswith("x-img-src-x-onerror-alert-3-")
    shown = check_page(page, 2)
    assert "The end of the engine's stderr" in shown and "payload on stderr: " in shown
    assert "Reproduce it" in shown and "python -m bridge compare " in shown
    index = check_page(report / "index.html", 0)
    assert "alert(3)" in index  # the file name, shown as text
    found = json.loads(json_report.read_bytes().decode("ascii"))
    jsonschema.validate(found, REPORT_SCHEMA)
    assert found["engine_name"] == ENGINE_PAYLOAD
    assert found["scenarios"][0]["divergence"]["found"] == ENGINE_PAYLOAD
    suite = ET.parse(junit).getroot()
    (case,) = suite.iter("testcase")
    assert case.get("name") == "x<img src=x onerror=alert(3)>\\x01"
    assert "\\ud800" in (case.findtext("system-err") or "")


def test_a_header_s_fields_are_type_checked(tmp_path: Path) -> None:
    from scenarios.format import ScenarioError, parse

    header = {"format": "optchat-scenario/1", "constants": constants_dict(SMALL)}
    for field, value, said in [
        ("seed", "<script>alert('seed')</script>", "seed must be an integer or null"),
        ("seed", 1.5, "seed must be an integer or null"),
        ("seed", True, "seed must be an integer or null"),
        ("generator", 5, "generator must be a string"),
    ]:
        with pytest.raises(ScenarioError, match=f"^s.jsonl:1: {said}"):
            parse([json.dumps({**header, field: value})], "s.jsonl")
    parse([json.dumps({**header, "seed": None, "generator": "g"})], "s.jsonl")


def test_a_fault_with_control_characters_gives_well_formed_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    write(hostile_scenario(), folder / f"{NAME}.jsonl")
    crash = "sh -c 'printf \"\\033[31mboom\\000\\001]]>\\n\" >&2; exit 3'"
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    args = ["corpus", str(folder), "--engine", crash, "--live-model", "--jobs", "1"]
    assert cli.main([*args, "--junit-xml", str(junit), "--json", str(report)]) == 2
    suite = ET.parse(junit).getroot()
    assert suite.get("errors") == "1"
    (case,) = suite.iter("testcase")
    error = case.find("error")
    assert error is not None and "boom" in (error.text or "")
    jsonschema.validate(json.loads(report.read_text()), REPORT_SCHEMA)


@pytest.mark.parametrize(
    ("option", "place", "said"),
    [
        ("--json", "folder", "is a folder; name a file"),
        ("--junit-xml", "under-a-file", "a file is where folder"),
        ("--report", "file", "a file is where folder"),
        ("--json", "proc", "cannot be written"),
    ],
)
def test_an_unwritable_report_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, place: str, said: str
) -> None:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-folder").mkdir()
    where = {
        "folder": tmp_path / "a-folder",
        "under-a-file": tmp_path / "a-file" / "junit.xml",
        "file": tmp_path / "a-file",
        "proc": Path("/proc/self/report.json"),
    }[place]
    code = cli.main(["corpus", "--engine", "impl", "--only", "empty_chat", option, str(where)])
    out, err = capsys.readouterr()
    assert code == 2 and said in err and err.count("\n") == 1 and "Traceback" not in err
    assert "[1/1]" not in out  # said before the run
    assert (tmp_path / "a-file").read_text() == "x"


def test_compare_refuses_an_unwritable_regressions_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("x")
    scenario = tmp_path / "s.jsonl"
    write(hostile_scenario(), scenario)
    args = ["compare", str(scenario), "--engine", "impl"]
    code = cli.main([*args, "--regressions", str(tmp_path / "a-file")])
    err = capsys.readouterr().err
    assert code == 2 and "--regressions" in err and err.count("\n") == 1


def test_a_report_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bridge.outputs import writing

    target = tmp_path / "report.json"
    target.write_text("the last report")

    def broken(source: str, destination: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(writing.UsageError, match=r"report.json: cannot be written \(No space"):
        writing.write_whole(target, "x" * 100_000)
    assert target.read_text() == "the last report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


class Refusing(InProcessExample):
    """engines/payloads.py in this process as far as a name goes: the engine
    under the hostile profile, its name the payload, making up a refusal at
    the event at 1 (a divergence)."""

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        out = super().answer(line)
        return {**out, "refused": ENGINE_PAYLOAD} if line.get("at") == 1 else out


def test_names_never_collide(
    hostile: Hostile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two scenarios of one name in two folders, and two engines (two
    commands, both run in this process: `Refusing`), give four regressions
    and four pages (one replay shrinks each, none in `corpus`, nor is a
    rule slip tried: what is named is the scenario, shrunk or not)."""
    engine, out = hostile.engine, hostile.out
    commands = (engine, engine.replace(sys.executable, f"{sys.executable} -B"))
    runs = {"kind_words": {"user": WORD}}
    in_process(
        monkeypatch,
        lambda spec: Refusing(spec, runs, ENGINE_PAYLOAD, runs) if spec in commands else None,
    )
    twins = [out / "a" / "x.jsonl", out / "b" / "x.jsonl"]
    for twin in twins:
        write(hostile_scenario(), twin)
    profile = ["--profile", str(hostile.profile), "--live-model"]
    for command in commands:
        for twin in twins:
            args = ["compare", str(twin), "--engine", command, *profile, "--shrink-tries", "1"]
            assert cli.main([*args, "--regressions", str(out / "r"), "--shrink-seconds", "2"]) == 1
        args = ["corpus", *map(str, twins), "--engine", command, *profile, "--jobs", "1"]
        quick = ["--shrink-tries", "0", "--shrink-seconds", "0.001"]
        assert cli.main([*args, "--report", str(out / "pages"), *quick]) == 1
    assert len(list((out / "r" / "scenarios").glob("*.jsonl"))) == 4
    assert len(list((out / "pages").glob("x-*.html"))) == 4
