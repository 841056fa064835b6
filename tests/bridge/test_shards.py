"""A campaign over N machines (`--shard K/N`): the corpus dealt by size into
parts that cover it once, fuzz shards drawing their own histories, the
laws' check laws on shard 1 only, usage mistakes said in one line, and the
shards' reports joined by `merge-reports` into the report one run gives."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

import bridge.cli as cli
from bridge.formats.layout import expected_path
from bridge.runs.shards import dealt, share
from laws.__main__ import main as laws_main
from laws.registry import PROFILES
from scenarios.shard import Shard
from tests.bridge.test_corpus_cli import REPORT_SCHEMA, copy_corpus, run, tamper

NAMES = ["random_00", "refused_zoom_0", "zoom_1", "refused_kind_0", "empty_chat", "both_kind_utf8"]
"""Six scenarios of unlike sizes and kinds, none of thousands of events: a
whole run and its shards replay each twice, and the merge, not the replay,
is what is checked."""


def test_the_corpus_is_dealt_into_parts_of_about_equal_bytes(tmp_path: Path) -> None:
    sizes = [5000, 4000, 3000, 3000, 2000, 1000, 1000, 500, 100, 0]
    paths = []
    for k, size in enumerate(sizes):
        paths.append(tmp_path / f"s{k}.jsonl")
        paths[-1].write_bytes(b"x" * size)
    for count in (1, 2, 3, 4, 12):
        parts = dealt(paths, count)
        assert len(parts) == count
        # Every scenario once, each part in the order given.
        assert sorted(p for part in parts for p in part) == sorted(paths)
        for part in parts:
            assert part == [p for p in paths if p in part]
        loads = [sum(p.stat().st_size for p in part) for part in parts]
        # Greedy largest-first: no part exceeds another by more than its largest scenario.
        assert max(loads) - min(loads) <= max(sizes)
        assert [share(paths, Shard(k, count)) for k in range(1, count + 1)] == parts
    # By hand: 5000 A, 4000 B, 3000 B, 3000 A, 2000 B, 1000 A (tie: the lower),
    # 1000 A, 500 B, 100 B, 0 B.
    assert [sum(p.stat().st_size for p in part) for part in dealt(paths, 2)] == [10000, 9600]
    # The same split whatever order the files were listed in (as in the folder).
    assert sorted(map(sorted, dealt(paths[::-1], 3))) == sorted(map(sorted, dealt(paths, 3)))


def statuses(report: dict) -> dict[str, str]:
    return {case["path"]: case["status"] for case in report["scenarios"]}


def tallies(suite: ET.Element) -> dict[str, str | None]:
    return {name: suite.get(name) for name in ("tests", "failures", "errors", "skipped")}


def test_shards_reports_merge_into_the_report_of_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_corpus(tmp_path, NAMES)
    tamper(expected_path(folder / "both_kind_utf8.jsonl"))  # the smallest: its FAIL is scanned
    base = ["corpus", str(folder), "--engine", "impl", "--jobs", "1"]
    whole_json, whole_xml = tmp_path / "whole.json", tmp_path / "whole.xml"
    code, _ = run([*base, "--json", str(whole_json), "--junit-xml", str(whole_xml)], capsys)
    assert code == 1
    parts_json, parts_xml, ran = [], [], []
    for k in (1, 2, 3):
        parts_json.append(tmp_path / f"shard-{k}.json")
        parts_xml.append(tmp_path / f"shard-{k}.xml")
        code, out = run(
            [*base, "--shard", f"{k}/3", "--json", str(parts_json[-1])]
            + ["--junit-xml", str(parts_xml[-1])],
            capsys,
        )
        assert code in (0, 1)
        shard = json.loads(parts_json[-1].read_text())
        ran.append(set(statuses(shard)))
        assert f"shard {k}/3: {len(ran[-1])} of {len(NAMES)} scenarios" in out
    # The shards cover the corpus once, none of them empty.
    assert all(ran) and sum(map(len, ran)) == len(NAMES)
    assert set().union(*ran) == {str(folder / f"{name}.jsonl") for name in NAMES}

    merged = tmp_path / "merged" / "all.json"
    code, out = run(["merge-reports", str(merged), *map(str, parts_json)], capsys)
    # The joined verdict is the whole run's: its exit code, and its last line.
    assert code == 1 and f"joined 3 reports into {merged}" in out
    found, whole = json.loads(merged.read_text()), json.loads(whole_json.read_text())
    jsonschema.validate(found, REPORT_SCHEMA)
    assert found["verdict"] == whole["verdict"] and whole["verdict"]["exit_code"] == 1
    assert out.splitlines()[-1] == whole["verdict"]["summary"]
    assert statuses(found) == statuses(whole)
    assert found["counts"] == whole["counts"] == {"ok": len(NAMES) - 1, "FAIL": 1}
    for field in ("engine", "engine_name", "profile", "agreement", "corpus_version"):
        assert found[field] == whole[field]
    # What was compared and delivered, summed over the shards as one run sums it.
    assert found["coverage"] == whole["coverage"]
    assert whole["coverage"]["delivery"]["scenarios"] == len(NAMES) - 1
    failed = next(c for c in found["scenarios"] if c["status"] == "FAIL")
    assert failed["divergence"]["field"] == "size"
    longest = max(json.loads(p.read_text())["seconds"] for p in parts_json)
    assert found["seconds"] == longest

    code, out = run(["merge-reports", str(tmp_path / "all.xml"), *map(str, parts_xml)], capsys)
    assert code == 1 and out.splitlines()[-1] == whole["verdict"]["summary"]
    suite, one = ET.parse(tmp_path / "all.xml").getroot(), ET.parse(whole_xml).getroot()
    assert (
        tallies(suite)
        == tallies(one)
        == {
            "tests": str(len(NAMES)),
            "failures": "1",
            "errors": "0",
            "skipped": "0",
        }
    )
    assert sorted(c.get("file") for c in suite.iter("testcase")) == sorted(
        c.get("file") for c in one.iter("testcase")
    )
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    whole = {p.get("name"): p.get("value") for p in one.iter("property")}
    # The run's sentences about what it compared are not summed over shards.
    assert said == {k: v for k, v in whole.items() if k not in ("coverage", "not_implemented")}
    assert len(suite.findall("properties")) == 1


@pytest.fixture
def two_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    folder = copy_corpus(tmp_path, ["zoom_1", "empty_chat"])
    out = []
    for k in (1, 2):
        out.append(tmp_path / f"s{k}.json")
        code, _ = run(
            ["corpus", str(folder), "--engine", "model", "--jobs", "1", "--shard", f"{k}/2"]
            + ["--json", str(out[-1]), "--junit-xml", str(out[-1].with_suffix(".xml"))],
            capsys,
        )
        assert code == 0
    return out[0], out[1]


def altered(path: Path, **fields: object) -> Path:
    report = json.loads(path.read_text())
    report.update(fields)
    changed = path.with_name(f"altered-{'-'.join(fields)}-{path.name}")
    changed.write_text(json.dumps(report))
    return changed


def test_reports_that_cannot_be_joined_are_said_in_one_line(
    tmp_path: Path, two_reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_reports
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    cases = [
        ([first, first], "the shards overlap"),
        ([first, second.with_suffix(".xml")], "not all of one kind"),
        ([first, altered(second, engine="another")], "not shards of one run"),
        ([first, altered(second, format="else/1")], "not an optchat-spec-report/1 report"),
        ([first, altered(second, seconds="soon")], "not a number"),
        ([first, bad], "not JSON"),
        ([first, tmp_path / "missing.json"], "cannot be read"),
        ([first.with_suffix(".xml"), first.with_suffix(".xml")], "the shards overlap"),
    ]
    out = tmp_path / "out.json"
    for inputs, said in cases:
        code = cli.main(["merge-reports", str(out), *map(str, inputs)])
        err = capsys.readouterr().err
        assert code == 2, (inputs, err)
        assert said in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()


@pytest.mark.parametrize("shard", ["0/2", "3/2", "x"])
@pytest.mark.parametrize("command", ["corpus", "fuzz", "laws"])
def test_a_shard_that_is_not_k_of_n_exits_2_in_one_line(
    command: str, shard: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, "--shard", shard, "--seed", "1"]
    if command == "corpus":
        argv.remove("--seed")
        argv.remove("1")
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "--shard" in err, err


def test_laws_and_fuzz_shards_need_the_runs_seed(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["fuzz", "--shard", "1/2"], ["laws", "--shard", "1/2"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "--shard needs --seed" in err and len(err.strip().splitlines()) == 1


def summary(out: str) -> str:
    line = next(line for line in out.splitlines() if line.startswith("no divergence in"))
    return line.split(" (")[0]  # the histories and events, not the time


def test_fuzz_shards_draw_their_own_histories_the_same_every_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen = {}
    for shard in ("1/2", "2/2", "1/2"):
        argv = ["fuzz", "--engine", "model", "--histories", "15", "--seed", "11"]
        assert cli.main([*argv, "--shard", shard]) == 0
        out = capsys.readouterr().out
        seen.setdefault(shard, []).append(summary(out))
        assert f"--seed 11 --shard {shard} --histories 15" in out
    assert seen["1/2"][0] == seen["1/2"][1]
    # 15 histories shared 8 and 7; other histories (their events differ).
    assert seen["1/2"][0].startswith("no divergence in 8 histories")
    assert seen["2/2"][0].startswith("no divergence in 7 histories")
    assert seen["1/2"][0].split("histories, ")[1] != seen["2/2"][0].split("histories, ")[1]


def test_a_fuzz_shard_left_with_no_history_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fuzz", "--engine", "model", "--histories", "1", "--seed", "3", "--shard", "2/2"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "shard 2/2: no history left to it of the 1 asked for" in out
    assert "nothing checked" in out and "throughput" not in out


def test_the_check_laws_run_on_the_first_shard_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fifteenth of the CI profile's histories, a tenth of its reply lists:
    # how a run is shared, not how deep it goes (the laws stage of the gate),
    # is what is checked here.
    monkeypatch.setitem(PROFILES, "ci", replace(PROFILES["ci"], histories=20, line_examples=50))
    tables = {}
    for shard in ("1/2", "2/2"):
        argv = ["--only", "queue_order", "line_fits", "--seed", "5", "--jobs", "1"]
        assert laws_main([*argv, "--shard", shard]) == 0
        tables[shard] = capsys.readouterr().out
    judged = {shard: re.findall(r"^(\w+) +holds ", out, re.M) for shard, out in tables.items()}
    assert "line_fits" in judged["1/2"] and "line_fits" not in judged["2/2"]
    assert "queue_order  holds" in tables["1/2"] and "queue_order  holds" in tables["2/2"]
    assert "the check laws on shard 1" in tables["2/2"]
    drawn = [t.split("step laws share ")[1].split(" of which")[0] for t in tables.values()]
    assert drawn[0] != drawn[1]  # histories of their own (their events differ)
    # Half the profile's 20 each (Hypothesis adds some calls it does not count).
    assert all(int(d.split()[0]) < 17 for d in drawn), drawn


def test_a_shard_left_with_no_law_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert laws_main(["--only", "bits_agree", "--seed", "5", "--shard", "2/2"]) == 0
    out = capsys.readouterr().out
    assert "shard 2/2: no law to check here (the check laws run on shard 1)" in out


def test_an_empty_shard_joins_without_hiding_what_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """More shards than scenarios: the empty one's report joins, and the
    joined report says the engine's name and profile the other learnt."""
    folder = copy_corpus(tmp_path, ["zoom_1"])
    for k in (1, 2):
        code, out = run(
            ["corpus", str(folder), "--engine", "model", "--jobs", "1", "--shard", f"{k}/2"]
            + ["--json", str(tmp_path / f"{k}.json"), "--junit-xml", str(tmp_path / f"{k}.xml")],
            capsys,
        )
        assert code == 0
    assert "shard 2/2: 0 of 1 scenarios" in out
    for suffix in (".json", ".xml"):
        inputs = [str(tmp_path / f"2{suffix}"), str(tmp_path / f"1{suffix}")]
        assert run(["merge-reports", str(tmp_path / f"all{suffix}"), *inputs], capsys)[0] == 0
    found = json.loads((tmp_path / "all.json").read_text())
    jsonschema.validate(found, REPORT_SCHEMA)
    assert found["engine_name"] == "optchat-spec model" and found["profile"] is not None
    suite = ET.parse(tmp_path / "all.xml").getroot()
    said = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert said["engine_name"] == "optchat-spec model" and said["profile"]
    assert suite.get("tests") == "1"
