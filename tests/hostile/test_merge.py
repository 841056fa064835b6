"""`merge-reports` on hostile shard reports (issue 36, item 5): a JSON
report is held to bridge/report.schema.json before it is joined (the
runner's own check, bridge/formats/schema.py, agrees with the `jsonschema`
package on every report tried here), a JUnit report's counts and
properties must be numbers, and OUT may not be one of the inputs. Each is
refused in one line naming the file, exit 2, nothing written."""

from __future__ import annotations

import copy
import json
import os
import stat
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bridge.cli as cli
from bridge.formats import schema
from bridge.formats.kit import BRIDGE
from bridge.formats.layout import expected_path
from bridge.formats.usage import UsageError
from bridge.outputs.writing import write_whole
from tests.bridge.test_corpus_cli import copy_corpus, tamper
from tests.hostile.processes import ROOT

REPORT = BRIDGE / "report.schema.json"
RULES = json.loads(REPORT.read_text())


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two shards' JSON and JUnit reports (STEM.json, STEM.xml) of a corpus
    run of the model, one scenario failing (its transcript tampered)."""
    tmp_path = tmp_path_factory.mktemp("shards")
    folder = copy_corpus(tmp_path, ["zoom_1", "empty_chat"])
    tamper(expected_path(folder / "zoom_1.jsonl"))
    out = []
    for k in (1, 2):
        out.append(tmp_path / f"s{k}.json")
        more = ["--json", str(out[-1]), "--junit-xml", str(out[-1].with_suffix(".xml"))]
        code = cli.main(["corpus", str(folder), "--engine", "model", "--shard", f"{k}/2", *more])
        assert code in (0, 1)
    return out[0], out[1]


def report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def failing(shards: tuple[Path, Path]) -> dict[str, Any]:
    """The shard report holding the divergence."""
    found = [report(p) for p in shards if report(p)["counts"].get("FAIL")]
    assert len(found) == 1
    return found[0]


def written(tmp_path: Path, value: Any, name: str = "hostile.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return path


def merged(out: Path, *inputs: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """merge-reports refused the inputs: exit 2, one line, nothing written; the line."""
    code = cli.main(["merge-reports", str(out), *map(str, inputs)])
    got, err = capsys.readouterr()
    assert code == 2, (got, err)
    assert "Traceback" not in got + err
    (line,) = err.splitlines()
    return line


def change(value: dict[str, Any], where: tuple[str | int, ...], to: Any) -> dict[str, Any]:
    changed = copy.deepcopy(value)
    holder = changed
    for step in where[:-1]:
        holder = holder[step]
    holder[where[-1]] = to
    return changed


HOSTILE = [
    (("scenarios", 0, "status"), ["FAIL"]),
    (("scenarios", 0, "status"), {"FAIL": 1}),
    (("scenarios", 0, "status"), None),
    (("scenarios", 0, "status"), "<script>alert(1)</script>"),
    (("counts", "FAIL"), -3),
    (("counts", "FAIL"), 0),
    (("counts", "FAIL"), 1.5),
    (("seconds",), -1),
    (("seconds",), "soon"),
    (("scenarios", 0, "answers"), True),
    (("scenarios", 0, "divergence", "spec_section"), "SPEC x"),
    (("coverage", "fraction"), 1.5),
    (("engine_name",), 5),
    (("corpus_version",), "7"),
    (("scenarios", 0, "notes"), [1]),
]


@pytest.mark.parametrize(("where", "to"), HOSTILE, ids=[f"{w[-1]}={t!r}" for w, t in HOSTILE])
def test_a_json_report_the_schema_refuses_is_not_joined(
    shards: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    where: tuple[str | int, ...],
    to: Any,
) -> None:
    base = failing(shards)
    if where[0] == "scenarios":  # the failing scenario's
        k = next(k for k, case in enumerate(base["scenarios"]) if case["divergence"])
        where = ("scenarios", k, *where[2:])
    hostile = change(base, where, to)
    assert not jsonschema.Draft202012Validator(RULES).is_valid(hostile), "the schema refuses it"
    other = next(p for p in shards if report(p) != base)
    out = tmp_path / "out.json"
    line = merged(out, other, written(tmp_path, hostile), capsys=capsys)
    assert line.startswith(f"optchat-spec merge-reports: {tmp_path / 'hostile.json'}: "), line
    assert "bridge/report.schema.json" in line
    assert not out.exists()


def test_a_json_report_of_nan_seconds_is_not_joined(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python reads NaN, which JSON does not have."""
    path = tmp_path / "nan.json"
    path.write_text(shards[0].read_text().replace('"seconds": ', '"seconds": NaN, "x": ', 1))
    line = merged(tmp_path / "out.json", path, shards[1], capsys=capsys)
    assert f"{path}: not JSON" in line, line


def test_the_joined_report_of_valid_shards_validates(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(Exit 1: the shards hold a FAIL, and the joined verdict is the run's.)"""
    out = tmp_path / "out.json"
    assert cli.main(["merge-reports", str(out), *map(str, shards)]) == 1
    assert report(out)["verdict"]["exit_code"] == 1
    jsonschema.validate(report(out), RULES)
    assert schema.problem(report(out), REPORT) is None


def test_out_among_the_inputs_is_refused(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = (tmp_path / p.name for p in shards)
    for source, copied in zip(shards, (first, second), strict=True):
        copied.write_bytes(source.read_bytes())
    before = first.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(first)
    os.chdir(tmp_path)
    for out in (first, Path(first.name), link):
        line = merged(out, first, second, capsys=capsys)
        assert "OUT" in line and "is one of the reports" in line, line
    assert first.read_bytes() == before


@pytest.mark.parametrize(
    ("name", "value"),
    [("events", "many"), ("events_compared", "-"), ("tests", "x"), ("failures", "-1")],
)
def test_a_junit_report_of_counts_that_are_no_numbers_is_not_joined(
    shards: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
) -> None:
    first, second = (p.with_suffix(".xml") for p in shards)
    suite = ET.parse(second).getroot()
    if name in suite.attrib:
        suite.set(name, value)
    else:
        (item,) = [p for p in suite.iter("property") if p.get("name") == name]
        item.set("value", value)
    hostile = tmp_path / "hostile.xml"
    hostile.write_bytes(ET.tostring(suite))
    out = tmp_path / "out.xml"
    line = merged(out, first, hostile, capsys=capsys)
    assert f"{hostile}: its {name} is {value!r}, not a whole number of zero or more" in line, line
    assert not out.exists()


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.sampled_from(["ok", "FAIL", "SPEC 3", "SPEC x", "", "<b>", "not_reached"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["events", "status", "x-y", "found"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (but the top)."""
    found = [at] if at else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            found += paths(item, (*at, k))
    return found


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(data=st.data())
def test_the_runner_s_schema_check_agrees_with_jsonschema(
    shards: tuple[Path, Path], data: st.DataObject
) -> None:
    """A report with one value (anywhere) replaced, one field added or one
    taken out: refused by the runner exactly when `jsonschema` refuses it."""
    base = failing(shards)
    where = data.draw(st.sampled_from(paths(base)))
    how = data.draw(st.sampled_from(["replaced", "added", "taken out"]))
    parent = base_at(base, where[:-1])
    if how == "taken out" and isinstance(parent, dict):
        kept = {key: item for key, item in parent.items() if key != where[-1]}
        value = change(base, where[:-1], kept) if where[:-1] else kept
    else:
        if how == "added" and isinstance(parent, dict):
            where = (*where[:-1], data.draw(st.sampled_from(["extra", "x-y", "later"])))
        value = change(base, where, data.draw(JSON))
    expected = jsonschema.Draft202012Validator(RULES).is_valid(value)
    assert (schema.problem(value, REPORT) is None) == expected, (how, where, value)


def base_at(value: Any, where: tuple[Any, ...]) -> Any:
    for step in where:
        value = value[step]
    return value


def device(tmp_path: Path, twin: str = "/dev/null") -> Path:
    """A private character device, the twin of `twin` (/dev/null: writes vanish)."""
    node = tmp_path / Path(twin).name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.stat(twin).st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD), which this run lacks")
    return node


@pytest.mark.parametrize("suffix", [".json", ".xml"])
def test_a_report_is_written_through_a_device_and_a_symlink_not_over_them(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    """Issue 42, item 1: the rename is for regular files; a device stays a
    device, a symlink stays a link and its target gets the report, and a
    folder is refused in one line."""
    inputs = [str(p.with_suffix(suffix)) for p in shards]
    node = device(tmp_path)
    assert cli.main(["merge-reports", str(node), *inputs]) == 1
    assert stat.S_ISCHR(node.lstat().st_mode)
    target, link = tmp_path / "target", tmp_path / "link"
    target.write_text("before")
    link.symlink_to(target)
    assert cli.main(["merge-reports", str(link), *inputs]) == 1
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text().startswith("<?xml" if suffix == ".xml" else "{")
    capsys.readouterr()
    line = merged(tmp_path, *map(Path, inputs), capsys=capsys)
    assert f"OUT {tmp_path}: is a folder" in line, line
    full = device(tmp_path, "/dev/full")  # every write fails: disk full
    line = merged(full, *map(Path, inputs), capsys=capsys)
    assert f"{full}: cannot be written (No space left on device)" in line, line
    assert stat.S_ISCHR(full.lstat().st_mode)


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    """The writer all reports share (bridge/outputs/writing.py): a FIFO
    gets the bytes (its reader reads them) and stays a FIFO."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_whole(fifo, "report\n")
    reader.join(timeout=30)
    assert got == [b"report\n"] and stat.S_ISFIFO(fifo.lstat().st_mode)
    with pytest.raises(UsageError, match="is a folder"):
        write_whole(tmp_path, "report\n")


def test_a_report_to_a_link_to_stdout_prints(shards: tuple[Path, Path], tmp_path: Path) -> None:
    """`OUT /dev/stdout` prints the report after what was printed before (a
    process of its own, whose stdout is the link's target). The link is a
    private one to /proc/self/fd/1, as /dev/stdout is: run as root without
    the fix, the test must not replace the system's /dev/stdout."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    out = subprocess.run(
        [sys.executable, "-m", "bridge", "merge-reports", str(link), *map(str, shards)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )
    assert out.returncode == 1, out.stderr
    assert link.is_symlink() and "{" in out.stdout, out.stdout
    body = out.stdout[out.stdout.index("{") : out.stdout.rindex("}") + 1]
    assert json.loads(body)["format"] == "optchat-spec-report/1"
    assert out.stdout.splitlines()[-1] == json.loads(body)["verdict"]["summary"]


def shard_of(path: Path, tmp_path: Path, said: str, name: str) -> Path:
    """A copy of a shard's report (JSON or JUnit) that says it is shard `said`."""
    copied = tmp_path / name
    if path.suffix == ".json":
        copied.write_text(json.dumps({**report(path), "shard": said}))
        return copied
    suite = ET.parse(path).getroot()
    (item,) = [p for p in suite.iter("property") if p.get("name") == "shard"]
    item.set("value", said)
    copied.write_bytes(ET.tostring(suite))
    return copied


@pytest.mark.parametrize("suffix", [".json", ".xml"])
def test_a_campaign_joins_only_with_every_shard_each_once(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    """Issue 42, item 2: each shard names K/N; all N of them, each once, or
    exit 2 naming what is missing (one shard alone was green)."""
    first, second = (p.with_suffix(suffix) for p in shards)
    out = tmp_path / f"out{suffix}"
    for inputs, said in [
        ([first], "shard 2/2 of the campaign is not among the reports"),
        ([second], "shard 1/2 of the campaign is not among the reports"),
        ([first, shard_of(second, tmp_path, "9/2", "x" + suffix)], "is not K/N"),
        ([first, shard_of(second, tmp_path, "1/2", "y" + suffix)], "the shards overlap"),
        ([first, shard_of(second, tmp_path, "2/3", "z" + suffix)], "not shards of one run"),
    ]:
        line = merged(out, *inputs, capsys=capsys)
        assert said in line, line
        assert not out.exists()


def test_matrix_writes_over_no_report_it_reads(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42, item 6: `matrix R.json -o R.json` (or `--json R.json`, or
    `-o X --json X`) is refused in one line, exit 2, the report kept."""
    read = tmp_path / "r.json"
    read.write_bytes(shards[0].read_bytes())
    page = tmp_path / "page.html"
    for more in (["-o", str(read)], ["--json", str(read)], ["-o", str(page), "--json", str(page)]):
        code = cli.main(["matrix", str(read), *more])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert read.read_bytes() == shards[0].read_bytes() and not page.exists()


def test_counts_that_contradict_each_other_are_not_joined(
    shards: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 42, item 7: a scenario compared 120 of its 1 events, or a JUnit
    count of 1.5 or 1e3 events, or more compared than events, is refused."""
    base = failing(shards)
    other = next(p for p in shards if report(p) != base)
    k = next(k for k, case in enumerate(base["scenarios"]) if case["coverage"])
    more = change(base, ("scenarios", k, "coverage", "events"), 1)
    more = change(more, ("scenarios", k, "coverage", "compared"), 120)
    line = merged(tmp_path / "out.json", other, written(tmp_path, more), capsys=capsys)
    assert "counts 120 compared of 1 events" in line, line
    first, second = (p.with_suffix(".xml") for p in shards)
    for name, value, said in [
        ("events", "1.5", "not a whole number"),
        ("events", "1e3", "not a whole number"),
        ("events_compared", "999999", "is more than its events"),
    ]:
        suite = ET.parse(second).getroot()
        (item,) = [p for p in suite.iter("property") if p.get("name") == name]
        item.set("value", value)
        hostile = tmp_path / "hostile.xml"
        hostile.write_bytes(ET.tostring(suite))
        line = merged(tmp_path / "out.xml", first, hostile, capsys=capsys)
        assert said in line, line
