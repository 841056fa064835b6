"""`matrix`: engines side by side (issue 37). The JSON reports of three
engines' corpus runs (the reference engine, the partial example engine
with its planted bug, declared, and the Node starter), and a fourth report
full of hostile text, make one page and one JSON document. Opened in
headless Chromium, every cell says the outcome the engine's own report
gives that scenario (read here from the report files, not from the
matrix), linked to the divergence page its run wrote; a click on a heading
sorts the rows by it, worst outcomes first, and a second click the other
way; the hostile text stays text. A report that is not one a run writes is
one line and exit 2."""

from __future__ import annotations

import html
import json
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bridge import cli
from bridge.outputs.matrix import Report, matrix, page
from tests.bridge.browser import needs_chromium, visit
from tests.bridge.test_report_payloads import Dangerous
from tests.examples.toolchain import toolchain

ROOT = Path(__file__).resolve().parents[2]
PARTIAL = Path(__file__).parent / "engines" / "partial.py"
SOME = ("empty_chat", "refused_kind_1", "refused_zoom_0", "both_kind_utf8")
"""Scenarios the three engines end differently: the partial engine's bug
fails refused_kind_1, it lacks zoom (SKIPPED), and the Node starter takes
only the empty chat."""

PAYLOAD = "<script>alert('m')</script><img src=x onerror=alert(1)>\u2028&amp;\x01"

WORST_FIRST = ["ERROR", "FAULT", "BAD", "FAIL", "UNEXPECTED PASS", "expected failure", "SKIPPED"]
"""How the page promises to sort a column: the worst outcomes first, then ok."""

SORTER = """<script>
addEventListener("load", () => {
  const order = () => Array.from(document.querySelectorAll("#matrix tbody tr"),
    (row) => row.cells[0].textContent).join("\\n");
  const heading = (k) => document.querySelector(`#matrix thead button[data-column="${k}"]`);
  const seen = [];
  for (const k of [3, 3, 0]) { heading(k).click(); seen.push(order()); }
  const out = document.createElement("pre");
  out.id = "sorted";
  out.textContent = JSON.stringify(seen);
  document.body.append(out);
});
</script>"""
"""Put in a copy of the page before its policy (as the probe is): clicks the
partial engine's heading twice, then the scenario heading, and writes the
rows' order after each click into the DOM."""


def hostile(report: Path, into: Path) -> Path:
    """A copy of `report` with hostile text wherever a report holds text,
    its divergence pages beside it as in the original."""
    data = json.loads(report.read_text())
    data["engine"] = data["engine_name"] = "engine " + PAYLOAD
    data["agreement"] = data["verdict"]["summary"] = PAYLOAD
    for case in data["scenarios"]:
        case["path"] = f"{PAYLOAD}/{case['path']}"
        case["family"] = case["reason"] = PAYLOAD
        if case["divergence"]:
            case["divergence"]["field"] = PAYLOAD
            case["divergence"]["spec_section"] = "SPEC 4.1"
    into.mkdir()
    for written in report.parent.glob("*.html"):
        shutil.copy(written, into)
    (into / "report.json").write_text(json.dumps(data))
    return into / "report.json"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Each engine's run on SOME (its pages and report in a folder of its
    own), and the hostile report. Made once: the tests that take it share
    an xdist group, so one worker runs them both."""
    node = toolchain("node")
    folder = tmp_path_factory.mktemp("matrix")
    engines = {
        "reference": "reference",
        "partial": f"{sys.executable} {PARTIAL} --bug --declare",
        "node": f"{node} {ROOT / 'examples' / 'node' / 'bridge.mjs'}",
    }
    only = [a for name in SOME for a in ("--only", name)]
    made = []
    for name, engine in engines.items():
        out = folder / name
        argv = ["corpus", "--engine", engine, *only, "--jobs", "1", "--report", str(out)]
        # A FAIL's page and report, nothing shrunk and no rule slip tried on it.
        argv += ["--shrink-tries", "0", "--shrink-seconds", "0.001"]
        cli.main([*argv, "--json", str(out / "report.json")])
        made.append(out / "report.json")
    return [*made, hostile(made[1], folder / "hostile")]


class Table(HTMLParser):
    """The rows of the page's table#matrix: each cell's text and link."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str | None]]] = []
        self.inside = self.body = False
        self.cell: list[str] | None = None
        self.link: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.inside |= tag == "table" and dict(attrs).get("id") == "matrix"
        self.body |= self.inside and tag == "tbody"
        if self.body and tag == "tr":
            self.rows.append([])
        if self.body and tag == "td":
            self.cell, self.link = [], None
        if self.cell is not None and tag == "a":
            self.link = dict(attrs).get("href")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(("".join(self.cell), self.link))
            self.cell = None
        if tag == "table":
            self.inside = self.body = False


def sorted_from(dom: str) -> str:
    """What the sorter wrote into the DOM."""
    start = dom.index('<pre id="sorted">') + len('<pre id="sorted">')
    return html.unescape(dom[start : dom.index("</pre>", start)])


@needs_chromium
@pytest.mark.xdist_group("matrix")  # one worker runs the engines for both
def test_the_page_of_three_engines_shows_each_report_s_outcomes_sorts_and_escapes(
    reports: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "site" / "matrix.html"
    written = tmp_path / "matrix.json"
    argv = ["matrix", *map(str, reports), "-o", str(out), "--json", str(written)]
    assert cli.main(argv) == 0
    found = json.loads(written.read_text(encoding="ascii"))
    jsonschema.validate(found, json.loads((ROOT / "bridge" / "matrix.schema.json").read_text()))

    # What each report says, read from the files.
    said = [json.loads(path.read_text()) for path in reports]
    outcomes = [{case["path"]: case for case in report["scenarios"]} for report in said]
    names = sorted({name for seen in outcomes for name in seen})
    assert {outcomes[0][n]["status"] for n in outcomes[0]} == {"ok"}  # the reference
    assert {c["status"] for c in outcomes[1].values()} == {"ok", "FAIL", "SKIPPED"}
    assert {c["status"] for c in outcomes[2].values()} == {"ok", "SKIPPED"}

    text = out.read_text(encoding="utf-8")
    probed = out.with_name("sorted-" + out.name)
    probed.write_text(text.replace("<head>", "<head>" + SORTER, 1))
    seen = visit(probed)
    assert seen.probe["errors"] == [] and seen.console == []
    dangerous = Dangerous()
    dangerous.feed(seen.dom)
    assert dangerous.found == [] and dangerous.scripts == 3  # its own, the probe, the sorter
    assert "alert('m')" in seen.dom  # the hostile text, shown as text

    # The rows as the page was written (the sorter's clicks come after the load).
    table = Table()
    table.feed(text)
    # A control character is shown as its escape (bridge/outputs/markup.py).
    shown = {name.replace("\x01", "\\x01"): name for name in names}
    assert [row[0][0] for row in table.rows] == list(shown)
    for row in table.rows:
        name = shown[row[0][0]]
        for k, (text, link) in enumerate(row[2:]):
            case = outcomes[k].get(name)
            assert text == (case["status"] if case else "not run"), (name, k)
            if case is not None and case["page"] is not None:
                assert (
                    link is not None
                    and (out.parent / link).resolve()
                    == (reports[k].parent / case["page"]).resolve()
                ), (name, k)
                assert (out.parent / link).is_file()
            else:
                assert link is None, (name, k)

    # Sorted by the partial engine (column 3), worst first, then the other way.
    clicked = json.loads(sorted_from(seen.dom))

    def rank(name: str) -> int:
        case = outcomes[1].get(name)
        if case is None:
            return len(WORST_FIRST) + 1
        status = case["status"]
        return WORST_FIRST.index(status) if status in WORST_FIRST else len(WORST_FIRST)

    up = sorted(names, key=lambda n: (rank(n), n))
    down = sorted(names, key=lambda n: (-rank(n), n))
    seen_names = [[shown[name] for name in order.split("\n")] for order in clicked]
    assert seen_names == [up, down, sorted(names)]
    assert up[0] == "corpus/refused_kind_1.jsonl" and rank(up[-1]) == len(WORST_FIRST) + 1


def model_report(tmp_path: Path) -> Path:
    """The JSON report of the model on the empty chat (a report in a second)."""
    good = tmp_path / "good.json"
    argv = ["corpus", "--engine", "model", "--only", "empty_chat", "--json", str(good)]
    assert cli.main(argv) == 0
    return good


def test_the_causes_a_report_gives_are_rows_of_its_engine(tmp_path: Path) -> None:
    """A report of a run that grouped its FAILs into causes (issue 34) gives
    them; each is a row under its engine, and a FAIL's cell names its cause."""
    data: dict[str, Any] = json.loads(model_report(tmp_path).read_text())
    (case,) = data["scenarios"]
    case.update(status="FAIL", reason="size differs", cause="views@message:message")
    data["causes"] = [
        {"id": "views@message:message", "said": PAYLOAD, "scenarios": [case["path"]]},
        {"id": "queue@start", "said": "the queue differs at a start", "scenarios": ["a", "b"]},
    ]
    found = matrix([Report(tmp_path / "r.json", data)], tmp_path / "m.html")
    jsonschema.validate(found, json.loads((ROOT / "bridge" / "matrix.schema.json").read_text()))
    assert [(c["id"], c["scenarios"]) for c in found["engines"][0]["causes"]] == [
        ("views@message:message", 1),
        ("queue@start", 2),
    ]
    shown = page(found)
    table = shown[shown.index("<h2>The causes</h2>") : shown.index('<p class="filters">')]
    assert table.count("<tr>") == 3 and "<code>queue@start</code>" in table
    assert "&lt;script&gt;alert(&#x27;m&#x27;)" in table and "<script>alert" not in shown
    assert 'title="size differs (cause views@message:message)"' in shown
    again = [Report(tmp_path / f"{k}.json", {**data, "causes": []}) for k in (1, 2)]
    twice = matrix(again, tmp_path / "m.html")
    assert "<h2>The causes</h2>" not in page(twice)
    name = data["engine_name"]
    when = data["started"][:16].replace("T", " ")
    assert [e["label"] for e in twice["engines"]] == [
        f"{name} (model) ({when}) ({tmp_path / f'{k}.json'})" for k in (1, 2)
    ]


def test_a_report_no_run_writes_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = model_report(tmp_path)
    report: dict[str, Any] = json.loads(good.read_text())
    bad = {
        "not JSON": "{",
        "NaN": good.read_text().replace('"seconds": ', '"seconds": NaN, "x": ', 1),
        "a list": "[]",
        "another format": json.dumps({**report, "format": "optchat-spec-diagnosis/1"}),
        "a link out": json.dumps(
            {**report, "scenarios": [{**report["scenarios"][0], "page": "javascript:x.html"}]}
        ),
    }
    capsys.readouterr()
    for what, text in bad.items():
        path = tmp_path / f"{what}.json"
        path.write_text(text)
        assert cli.main(["matrix", str(good), str(path), "-o", str(tmp_path / "m.html")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, (what, err)
    assert cli.main(["matrix", str(tmp_path / "missing.json"), "-o", str(tmp_path / "m.html")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    assert not (tmp_path / "m.html").exists()  # nothing written from a bad report


FILTERS = """<script>
addEventListener("load", () => {
  const shown = () => Array.from(document.querySelectorAll("#matrix tbody tr"))
    .filter((row) => getComputedStyle(row).display !== "none").length;
  const seen = {all: shown()};
  for (const box of ["only-fail", "only-differ"]) {
    document.getElementById(box).click();
    seen[box] = shown();
    document.getElementById(box).click();
  }
  const colour = (selector) => getComputedStyle(document.querySelector(selector)).color;
  seen.colours = {FAIL: colour("#matrix td.FAIL"), ok: colour("#matrix td.ok"),
    SKIPPED: colour("#matrix td.SKIPPED"), pass: colour(".verdict.pass"),
    fail: colour(".verdict.fail")};
  const out = document.createElement("pre");
  out.id = "sorted";
  out.textContent = JSON.stringify(seen);
  document.body.append(out);
});
</script>"""
"""Put in a copy of the page: ticks each filter alone and counts the rows
of table#matrix left shown, and reads the colours the browser gives a
FAIL, an ok and a SKIPPED cell and a green and a red verdict."""


def earlier(report: Path, into: Path) -> Path:
    """The partial engine's report as an earlier run of it would have been:
    begun a day before, refused_kind_1 ok there and both_kind_utf8 FAIL."""
    data = json.loads(report.read_text())
    data["started"] = "2026-12-05T01:00:00+00:00"
    for case in data["scenarios"]:
        if case["scenario"] == "refused_kind_1.jsonl":
            case.update(status="ok", reason="", divergence=None, page=None, cause=None)
        if case["scenario"] == "both_kind_utf8.jsonl":
            case.update(status="FAIL", reason="size differs", page=None)
    into.mkdir()
    (into / "report.json").write_text(json.dumps(data))
    return into / "report.json"


@needs_chromium
@pytest.mark.xdist_group("matrix")  # one worker runs the engines for both
def test_five_reports_show_verdicts_colours_families_filters_and_a_history(
    reports: list[Path], tmp_path: Path
) -> None:
    """A green report, a red one, one that compared nothing (the Node
    starter), two runs of one engine (the partial engine's, an earlier one
    made from it): each verdict coloured as its exit code says, the
    families' pass rates, the filters in a browser, and the history."""
    given = [*reports[:3], earlier(reports[1], tmp_path / "earlier")]
    out = tmp_path / "matrix.html"
    argv = ["matrix", *map(str, given), "-o", str(out), "--json", str(tmp_path / "m.json")]
    assert cli.main(argv) == 0
    said = [json.loads(path.read_text()) for path in given]
    assert [r["verdict"]["exit_code"] for r in said[:3]] == [0, 1, 1]
    assert "NOTHING COMPARED" in said[2]["verdict"]["summary"]
    found = json.loads((tmp_path / "m.json").read_text())
    jsonschema.validate(found, json.loads((ROOT / "bridge" / "matrix.schema.json").read_text()))
    # The partial engine's two runs side by side, oldest first.
    assert [e["report"] for e in found["engines"]] == list(
        map(str, [*given[:1], given[3], given[1], given[2]])
    )
    (history,) = found["histories"]
    assert history["columns"] == [1, 2]
    assert history["changes"] == [
        {
            "from": 1,
            "to": 2,
            "newly_failing": ["corpus/refused_kind_1.jsonl"],
            "newly_passing": ["corpus/both_kind_utf8.jsonl"],
        }
    ]
    text = out.read_text(encoding="utf-8")
    for report in said:
        colour = "pass" if report["verdict"]["exit_code"] == 0 else "fail"
        summary = html.escape(report["verdict"]["summary"])
        assert f'<span class="verdict {colour}"><bdi>{summary}</bdi></span>' in text
        assert "agrees with SPEC" not in text
    # Each family's pass rate in each engine, counted from the reports.
    by_report = dict(zip(map(str, given), said, strict=True))
    family_of = {c["path"]: c["family"] for r in said[::-1] for c in r["scenarios"] if c["family"]}
    for family in found["families"]:
        for e, ok, ran in zip(found["engines"], family["ok"], family["ran"], strict=True):
            cases = [
                c
                for c in by_report[e["report"]]["scenarios"]
                if family_of[c["path"]] == family["family"]
            ]
            assert (ran, ok) == (len(cases), sum(c["status"] == "ok" for c in cases)), (
                e["report"],
                family,
                by_report[e["report"]]["scenarios"],
            )
        opened = '<details class="family"><summary><table class="grid"><tr><td><b>'
        assert f"{opened}{family['family']}</b>" in text

    probed = out.with_name("filtered-" + out.name)
    probed.write_text(text.replace("<head>", "<head>" + FILTERS, 1))
    seen = visit(probed)
    assert seen.probe["errors"] == [] and seen.console == []
    counted = json.loads(sorted_from(seen.dom))
    names = sorted({c["path"] for r in said for c in r["scenarios"]})
    status = [{c["path"]: c["status"] for c in r["scenarios"]} for r in said]
    red = {"FAIL", "FAULT", "BAD", "ERROR", "UNEXPECTED PASS"}
    assert counted["all"] == len(names)
    assert counted["only-fail"] == sum(any(s.get(n) in red for s in status) for n in names) > 0
    assert counted["only-differ"] == sum(len({s.get(n) for s in status}) > 1 for n in names)
    assert counted["only-differ"] < len(names)
    assert counted["colours"] == {
        "FAIL": "rgb(170, 0, 0)",
        "ok": "rgb(0, 102, 0)",
        "SKIPPED": "rgb(119, 119, 119)",
        "pass": "rgb(0, 102, 0)",
        "fail": "rgb(170, 0, 0)",
    }


def test_a_report_of_another_corpus_version_is_marked_and_in_no_history(tmp_path: Path) -> None:
    data: dict[str, Any] = json.loads(model_report(tmp_path).read_text())
    older = {
        **data,
        "corpus_version": data["corpus_version"] - 1,
        "started": "2020-01-01T00:00:00+00:00",
    }
    found = matrix(
        [Report(tmp_path / "new.json", data), Report(tmp_path / "old.json", older)],
        tmp_path / "m.html",
    )
    assert found["histories"] == []  # one engine, but not one corpus
    (note,) = found["notes"]
    assert f"corpus versions {older['corpus_version']}, {data['corpus_version']}" in note
    shown = page(found)
    # The older corpus's row says it is not the newest.
    marked = shown.count('<b class="marked">')
    older_said = (
        f"corpus version {older['corpus_version']}: not the newest, {data['corpus_version']}"
    )
    assert marked == 1 and older_said in shown
