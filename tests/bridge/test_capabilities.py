"""Capabilities (bridge/PROTOCOL.md, "Capabilities"; issue 21): an engine
that lacks an optional part of SPEC and says so agrees, with what was not
compared counted exactly; the same engine saying nothing diverges; a
scenario made to test only what it lacks is SKIPPED; and every report says
how much was compared."""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import bridge
import bridge.cli as cli
from bridge.checking.against import against
from bridge.checking.compare import expected_fields
from bridge.formats import capabilities
from bridge.formats.kit import CORPUS
from bridge.wire.engine import Engine
from bridge.wire.observe import ORDER
from bridge.wire.stream import Exchange, from_model
from model.profile import from_options
from scenarios.format import Scenario, read
from tests.bridge.engines import lacking as lacking_engine
from tests.bridge.helpers import REPORTS, InProcessExample, in_process

LACKING = Path(__file__).parent / "engines" / "lacking.py"
DECLARING = f"{shlex.quote(sys.executable)} {shlex.quote(str(LACKING))} --declare"
SILENT = f"{shlex.quote(sys.executable)} {shlex.quote(str(LACKING))}"


@pytest.fixture(autouse=True)
def lacking_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """DECLARING and SILENT run in this process where the runner does (a
    declaration of another list is still the program)."""

    def engine(spec: str) -> Engine | None:
        if spec not in (DECLARING, SILENT):
            return None
        held = lacking_engine.DECLARED if spec == DECLARING else None
        return InProcessExample(spec, {}, "optchat-spec impl", None, held, lacking_engine.LACKED)

    in_process(monkeypatch, engine)


TIMEOUTS = ["random_00", "refused_timeout_needs_wait_0"]
"""Corpus scenarios with timeouts, accepted and refused."""

REPORT = json.loads((Path(bridge.__file__).parent / "report.schema.json").read_text("utf-8"))


def events_of(path: Path) -> list[dict[str, Any]]:
    """A scenario file's events, read here without the bridge."""
    return [json.loads(line) for line in path.read_text("utf-8").split("\n")[1:-1]]


def accepted(events: list[dict[str, Any]], kind: str) -> int:
    """Events of a kind the scenario does not mark as refused (a corpus
    scenario marks every refusal: the corpus run checks it)."""
    return sum(1 for e in events if e["event"] == kind and "refused" not in e)


def with_family(source: Path, family: str, into: Path) -> Path:
    """A copy of a scenario whose header names another family."""
    head, _, rest = source.read_text("utf-8").partition("\n")
    header = json.loads(head)
    header["notes"]["family"] = family
    target = into / f"{family}_{source.name}"
    target.write_text(json.dumps(header) + "\n" + rest, "utf-8")
    return target


def corpus(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, dict[str, Any], ET.Element]:
    """A corpus run with both machine reports: its code, its output, the
    JSON report (checked against the schema above) and the JUnit suite."""
    report, junit = tmp_path / "run.json", tmp_path / "run.xml"
    code = cli.main(
        ["corpus", *args, "--jobs", "1", "--json", str(report), "--junit-xml", str(junit)]
    )
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    data = json.loads(report.read_text("utf-8"))
    REPORTS.validate(data)
    return code, out + err, data, ET.parse(junit).getroot()


def lacking(coverage: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["capability"]: entry for entry in coverage["not_implemented"]}


def properties(element: ET.Element) -> dict[str, str]:
    listed = element.find("properties")
    assert listed is not None
    return {p.get("name", ""): p.get("value", "") for p in listed.findall("property")}


def test_an_engine_declaring_what_it_lacks_agrees_and_the_rest_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zooms = with_family(CORPUS / "zoom_1.jsonl", "mixed", tmp_path)
    paths = [CORPUS / f"{name}.jsonl" for name in TIMEOUTS] + [zooms]
    code, out, data, suite = corpus([*map(str, paths), "--engine", DECLARING], tmp_path, capsys)
    assert code == 0, out
    assert f"ALL {len(paths)} SCENARIOS AGREE" in out
    total_events = total_compared = 0
    for path, case, testcase in zip(paths, data["scenarios"], suite.iter("testcase"), strict=True):
        events = events_of(path)
        timed_out = accepted(events, "timeout")
        zoomed = sum(1 for e in events if e["event"] == "zoom")
        assert timed_out > 0
        coverage = case["coverage"]
        assert coverage["events"] == len(events)
        assert coverage["compared"] == len(events) - zoomed
        lacks = lacking(coverage)
        assert set(lacks) == {"timed_out_render", "zoom"}
        # One timed-out render's CRC per accepted timeout, and the one in the detail.
        assert lacks["timed_out_render"]["fields_not_compared"] == timed_out + 1
        assert lacks["timed_out_render"]["answers"] == timed_out + 1
        assert lacks["zoom"]["events_not_sent"] == zoomed
        assert lacks["zoom"]["fields_not_compared"] == 0
        output = testcase.find("system-out")
        assert output is not None and output.text is not None
        assert f"compared {len(events) - zoomed:,} of {len(events):,} events" in output.text
        total_events += len(events)
        total_compared += len(events) - zoomed
    assert zoomed > 0  # the last scenario holds zooms
    summed = data["coverage"]
    assert (summed["events"], summed["compared"]) == (total_events, total_compared)
    assert summed["fraction"] == pytest.approx(total_compared / total_events, abs=1e-6)
    said = properties(suite)
    assert float(said["fraction_compared"]) == pytest.approx(total_compared / total_events)
    assert said["events"] == str(total_events)
    assert said["not_implemented"].startswith("not implemented: timed_out_render (")
    assert f"compared {total_compared:,} of {total_events:,} events" in out
    assert "zoom (" in out


def test_the_same_engine_saying_nothing_diverges_where_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CORPUS / "random_00.jsonl"
    code, out, data, suite = corpus([str(path), "--engine", SILENT], tmp_path, capsys)
    assert code == 1
    events = events_of(path)
    first = next(k for k, e in enumerate(events) if e["event"] == "timeout" and "refused" not in e)
    case = data["scenarios"][0]
    assert case["divergence"]["field"] == "render_timed_out_crc"
    assert case["divergence"]["position"] == first
    coverage = case["coverage"]
    # Every answer up to the divergence was read; the window may hold more unread.
    assert coverage["compared"] == first + 1 and coverage["stopped"] is True
    assert coverage["not_implemented"] == []
    assert coverage["not_reached"] == len(events) - first - 1
    output = next(suite.iter("testcase")).find("system-out")
    assert output is not None and "the replay stopped early" in (output.text or "")


def test_the_same_engine_saying_nothing_diverges_at_a_zoom(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zooms = with_family(CORPUS / "zoom_1.jsonl", "mixed", tmp_path)
    code, out = (
        cli.main(
            [
                "compare",
                str(zooms),
                "--engine",
                SILENT,
                "--capabilities",
                "settle_timeout,compaction_view,queue_waiting,replies,zoom",
                "--shrink-seconds",
                "1",
                "--regressions",
                str(tmp_path / "r"),
            ]
        ),
        capsys.readouterr().out,
    )
    assert code == 1
    events = events_of(zooms)
    first = next(k for k, e in enumerate(events) if e["event"] == "zoom" and "refused" not in e)
    assert f"at event {first} " in out and "field 'zoom'" in out


def test_a_scenario_made_to_test_only_a_lacking_capability_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [CORPUS / "zoom_0.jsonl", CORPUS / "refused_zoom_0.jsonl"]
    code, out, data, suite = corpus([*map(str, paths), "--engine", DECLARING], tmp_path, capsys)
    # Skipped, never passed: and a run of nothing but skips compared nothing, so it is red.
    assert code == 1 and out.splitlines()[-1].startswith("NOTHING COMPARED: ")
    for case in data["scenarios"]:
        assert case["status"] == "SKIPPED"
        assert "tests only zoom (SPEC 3.5)" in case["reason"]
        assert case["coverage"]["compared"] == 0
    *cases, run_case = suite.iter("testcase")
    skipped = [c.find("skipped") for c in cases]
    assert len(skipped) == 2
    assert all(s is not None and "zoom" in s.get("message", "") for s in skipped)
    assert run_case.find("failure") is not None and run_case.get("name") == "events compared"
    events = sum(len(events_of(p)) for p in paths)
    assert data["coverage"]["skipped"] == events and data["coverage"]["fraction"] == 0


def test_an_engine_with_every_capability_is_compared_on_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [CORPUS / "zoom_0.jsonl", CORPUS / "random_00.jsonl"]
    everything = ",".join(sorted(capabilities.ALL))
    runs = [
        corpus([*map(str, paths), "--engine", "impl", *given], tmp_path, capsys)
        for given in ([], ["--capabilities", everything])
    ]
    for code, out, data, suite in runs:
        assert code == 0
        # A scenario compared in full adds nothing to its JUnit case.
        assert not [case for case in suite.iter("testcase") if list(case)]
        assert properties(suite)["fraction_compared"] == "1.000000"
        events = sum(len(events_of(p)) for p in paths)
        assert data["coverage"]["compared"] == data["coverage"]["events"] == events
        assert data["coverage"]["not_implemented"] == []
        said = out.rstrip().splitlines()
        assert said[-2] == (
            f"compared {events:,} of {events:,} events (100.0 %); delivered {events:,} of "
            f"{events:,} events under the profile (100 %) in the 2 scenarios replayed to the end"
        )
        assert data["coverage"]["delivery"] == {
            "events": events,
            "delivered": events,
            "fraction": 1.0,
            "scenarios": 2,
        }
        assert properties(suite)["fraction_delivered"] == "1.000000"
        assert said[-1].startswith("ALL 2 SCENARIOS AGREE")
    assert runs[0][2]["scenarios"][0]["coverage"] == runs[1][2]["scenarios"][0]["coverage"]


def test_replies_are_sent_as_the_chosen_line_to_an_engine_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = with_family(CORPUS / "chooser_1.jsonl", "mixed", tmp_path)
    held = ",".join(sorted(capabilities.ALL - {"replies"}))
    code, out, data, _ = corpus(
        [str(mixed), "--engine", "impl", "--capabilities", held], tmp_path, capsys
    )
    assert code == 0
    events = events_of(mixed)
    ends = sum(1 for e in events if e["event"] == "end" and "replies" in e and "refused" not in e)
    assert ends > 0
    coverage = data["scenarios"][0]["coverage"]
    assert lacking(coverage)["replies"]["events_given"] == ends
    assert coverage["compared"] == len(events)
    # The chooser scenarios themselves test only the chooser.
    code, out, data, _ = corpus(
        [str(CORPUS / "chooser_1.jsonl"), "--engine", "impl", "--capabilities", held],
        tmp_path,
        capsys,
    )
    assert data["scenarios"][0]["status"] == "SKIPPED"


def test_a_call_asking_on_is_read_by_the_model_alone_for_an_engine_without_replies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under `replies_out: asks` (SPEC 10) an end whose replies run out leaves
    its call running: an engine without `replies` chooses nothing, so it is
    sent nothing then, while the model reads the replies on; the call's next
    end is sent as the line chosen from the whole conversation."""
    mixed = with_family(CORPUS / "chooser_1.jsonl", "mixed", tmp_path)
    asks = tmp_path / "asks.json"
    asks.write_text('{"replies_out": "asks"}', encoding="utf-8")
    held = ",".join(sorted(capabilities.ALL - {"replies"}))
    argv = [str(mixed), "--engine", "impl", "--profile", str(asks), "--capabilities", held]
    code, out, data, _ = corpus(argv, tmp_path, capsys)
    assert code == 0, out
    ends = sum(1 for e in events_of(mixed) if e["event"] == "end" and "replies" in e)
    left = lacking(data["scenarios"][0]["coverage"])["replies"]
    assert 0 < left["events_given"] < ends, left
    assert left["events_not_sent"] > 0, left


def test_the_line_given_for_a_call_that_asked_on_is_chosen_from_its_whole_conversation() -> None:
    """SPEC 10's example of `replies_out: asks`, for an engine without
    `replies`: replies of 20 and 15 bytes run out under TRIES 3 (nothing is
    sent), then a reply of 12 bytes ends the tries: the line sent is that
    reply cut to NODE, chosen from all three. Read alone, the 12-byte reply
    would run out too, and nothing would be sent at all."""
    scenario = Scenario(
        constants={"node": 10, "tries": 3, "jobs": 2, "ahead": 2},
        events=[
            {"event": "message", "kind": "user", "text": "x" * 24},
            {"event": "start", "node": [0, 0]},
            {"event": "end", "node": [0, 0], "replies": [{"text": "a" * 20}, {"text": "b" * 15}]},
            {"event": "end", "node": [0, 0], "replies": [{"text": "c" * 12}]},
        ],
    )
    held = capabilities.ALL - {"replies"}
    exchanges = list(
        from_model(
            scenario, from_options({"replies_out": "asks"}), True, capabilities.lacking(held)
        )
    )
    ends = [x for x in exchanges if x.position in (2, 3)]
    assert [x.sent for x in ends] == [False, True]
    assert ends[1].line == {"event": "end", "node": [0, 0], "line": "c" * 10, "at": 3}
    assert ends[1].expected["line"] == "c" * 10


def test_queue_waiting_left_out_of_every_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CORPUS / "random_11.jsonl"
    held = ",".join(sorted(capabilities.ALL - {"queue_waiting"}))
    code, out, data, _ = corpus(
        [str(path), "--engine", "impl", "--capabilities", held], tmp_path, capsys
    )
    assert code == 0
    events = len(events_of(path))
    left = lacking(data["scenarios"][0]["coverage"])["queue_waiting"]
    assert left["fields_not_compared"] == left["answers"] == events


def test_without_a_settle_timeout_no_timeout_is_sent_and_both_sides_stay_in_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The smallest scenario of the corpus holding timeouts and relative settles.
    path = CORPUS / "both_need_first_retry_waits.jsonl"
    held = ",".join(sorted(capabilities.ALL - {"settle_timeout"}))
    code, out, data, _ = corpus(
        [str(path), "--engine", "impl", "--capabilities", held], tmp_path, capsys
    )
    assert code == 0, out
    events = events_of(path)
    timeouts = sum(1 for e in events if e["event"] == "timeout")
    coverage = data["scenarios"][0]["coverage"]
    lacks = lacking(coverage)
    # A relative settle (scenario format 3) is a timeout while the view is
    # unsettled, and a turn no timeout ended stays unsettled longer: those
    # are not sent either, and nothing else is for this capability. (Relative
    # events that then find no call to act on are never sent: not reached.)
    relative = sum(1 for e in events if e["event"] == "settle" and "unsettled" in e)
    assert set(lacks) == {"settle_timeout", "timed_out_render"}
    not_sent = lacks["settle_timeout"]["events_not_sent"]
    assert timeouts <= not_sent <= timeouts + relative
    assert lacks["timed_out_render"]["fields_not_compared"] == 1  # the detail's
    assert coverage["compared"] == len(events) - not_sent - coverage["not_reached"]
    # The events not sent for the capability are not owed under the profile.
    assert coverage["delivery"]["events"] == len(events) - not_sent


@pytest.mark.parametrize(
    "given, said",
    [
        ("zoom,teleport", "unknown capability 'teleport'"),
        ("[1]", "unknown capability '[1]'"),
    ],
)
def test_a_wrong_capability_list_is_one_line(
    given: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", str(CORPUS / "random_00.jsonl"), "--engine", "impl"]
    code = cli.main([*args, "--capabilities", given])
    out, err = capsys.readouterr()
    assert code == 2 and said in out + err and "Traceback" not in out + err


def test_a_capability_file_and_a_declaration_that_disagrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "caps.json"
    listed.write_text('["zoom"]', "utf-8")
    code = cli.main(
        [
            "compare",
            str(CORPUS / "random_00.jsonl"),
            "--engine",
            DECLARING,
            "--capabilities",
            str(listed),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2 and "declares other capabilities than --capabilities gives:" in out + err
    listed.write_text('{"zoom": true}', "utf-8")
    args = ["compare", str(CORPUS / "random_00.jsonl"), "--engine", "impl"]
    code = cli.main([*args, "--capabilities", str(listed)])
    out, err = capsys.readouterr()
    assert code == 2 and "a list of names" in out + err


def test_the_report_schema_names_every_capability_and_handling() -> None:
    lacks = REPORT["$defs"]["coverage"]["properties"]["not_implemented"]["items"]["properties"]
    assert lacks["capability"]["enum"] == [c.name for c in capabilities.CAPABILITIES]
    handling = {c.handling for c in capabilities.CAPABILITIES}
    assert set(lacks["handling"]["enum"]) == handling


def test_lacking_a_settle_timeout_implies_no_timed_out_render() -> None:
    names = [c.name for c in capabilities.lacking(capabilities.ALL - {"settle_timeout"})]
    assert names == ["settle_timeout", "timed_out_render"]
    owner = capabilities.ignored_fields(capabilities.lacking(frozenset()))
    # Every field a capability owns is a field answers have (bridge/wire/observe.py).
    assert set(owner) <= set(ORDER)


def test_the_worked_example_in_the_protocol_is_what_the_bridge_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (Path(__file__).parents[2] / "bridge" / "PROTOCOL.md").read_text("utf-8")
    section = text.split("## Capabilities", 1)[1].split("\n## ", 1)[0]
    header = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    held = capabilities.parse(header["capabilities"], "PROTOCOL.md")
    assert [c.name for c in capabilities.lacking(held)] == ["timed_out_render", "zoom"]
    said = " ".join(section.split("and the run says:\n\n", 1)[1].split("\n\n", 1)[0].split())
    zooms = with_family(CORPUS / "zoom_1.jsonl", "mixed", tmp_path)
    assert cli.main(["compare", str(zooms), "--engine", DECLARING]) == 0
    assert said in capsys.readouterr().out


def test_the_html_page_of_a_divergence_says_what_was_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CORPUS / "random_00.jsonl"
    pages = tmp_path / "pages"
    code, _, data, _ = corpus(
        [str(path), "--engine", SILENT, "--report", str(pages)], tmp_path, capsys
    )
    assert code == 1
    compared = data["scenarios"][0]["coverage"]["compared"]
    events = len(events_of(path))
    page = (pages / data["scenarios"][0]["page"]).read_text("utf-8")
    assert f"compared {compared:,} of {events:,} events" in page
    assert "not reached (the replay stopped early)" in page
    front = (pages / "index.html").read_text("utf-8")
    assert f"compared {compared:,} of {events:,} events" in front
    assert f"{compared:,} of {events:,} ({100 * compared / events:.1f} %)" in front


@pytest.mark.parametrize(
    "declared, said",
    [
        ('"zoom"', "capabilities are a list of names"),
        ('["zoom", "<b>x</b>"]', "unknown capability '<b>x</b>'"),
    ],
)
def test_a_wrong_declaration_is_an_engine_fault_in_one_line(
    declared: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = f"{DECLARING} {shlex.quote(declared)}"
    code = cli.main(["compare", str(CORPUS / "random_00.jsonl"), "--engine", engine])
    out, err = capsys.readouterr()
    assert code == 2 and said in out + err and "Traceback" not in out + err
    assert "at the header" in out + err


def test_show_against_an_engine_honours_what_it_declares(tmp_path: Path) -> None:
    zooms = with_family(CORPUS / "zoom_1.jsonl", "mixed", tmp_path)
    _, comparison = against(read(zooms), DECLARING, None, 10.0)
    assert comparison.divergence is None
    assert "zoom (150 events not sent)" in comparison.verdict
    _, skipped = against(read(CORPUS / "zoom_1.jsonl"), DECLARING, None, 10.0)
    assert "SKIPPED: it tests only zoom" in skipped.verdict


def test_the_fields_left_out_are_found_in_a_transcripts_bytes_as_in_its_values() -> None:
    """What `run` counts as not compared is read from the expected answer's
    bytes when a transcript gave them: a key only, never the same words
    inside a text (a render quoting `"zoom":`)."""
    keys = {name: f'"{name}":'.encode() for name in ("zoom", "cview", "render_timed_out")}
    answers = [
        {"size": 1, "zoom": "z", "cview": [[0, 0]]},
        {"size": 2, "render": 'a "zoom": "cview":[] "render_timed_out":x'},
        {"render_timed_out": "", "cview_digest": 3},
    ]
    for answer in answers:
        raw = json.dumps(answer, separators=(",", ":")).encode()
        from_bytes = expected_fields(Exchange({}, 0, answer=raw), keys)
        from_value = expected_fields(Exchange({}, 0, parsed=answer), keys)
        assert from_bytes == from_value == [name for name in keys if name in answer]
