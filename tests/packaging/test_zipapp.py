"""optchat-spec.pyz, the runner in one file (release/zipapp.py): copied into
an empty directory and started by the bare interpreter in isolated mode
(`python3 -I`), with an environment holding only PATH and HOME, it holds
the whole corpus and its transcripts and the runner's sources as they are
in the project, replays bundled scenarios of every family against the
reference engine (`--engine reference`: impl.protocol, started by the
zipapp's own interpreter from its unpacked folder) and writes both reports
(the whole corpus through impl.protocol, from the same sources, is
tests/packaging/test_install.py's). Its payload is unpacked once per
build into the user's cache with its modules compiled, checked at every
start (by a stamp of each file's size and times, the file hashed again when
they moved), repaired when changed, unpacked by concurrent first runs
without a clash, and put in a folder of the user's own (or a scratch
folder) when the cache cannot be written. Its reports name the bundled
scenarios `corpus/NAME.jsonl`, never by the cache they were unpacked into."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import jsonschema
import pytest

from release import unpack, zipapp
from tests.packaging.kits import PYTHON, ROOT
from tests.packaging.test_install import (
    SCENARIOS,
    corpus_version,
    source_version,
)

pytestmark = pytest.mark.xdist_group("zipapp")
"""The whole corpus runs here: beside the installed wheel's group, not after it."""


def run(pyz: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python3 -I optchat-spec.pyz ARGS` from the zipapp's directory, HOME
    beside it unless `env` says otherwise."""
    home = pyz.parent.parent / "home"
    return subprocess.run(
        [str(PYTHON), "-I", zipapp.NAME, *args],
        cwd=pyz.parent,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def cached(pyz: Path) -> list[Path]:
    return sorted((pyz.parent.parent / "home" / ".cache" / "optchat-spec").iterdir())


FAMILIES = ("late_1500", "random_00", "chooser_0", "zoom_0", "both_kind_utf8", "empty_chat")
FAMILIES += ("refused_zoom_0", "refused_settle_needs_wait_0", "refused_utf8_0")
"""Bundled scenarios the single file replays: one of each family but the
long deep and steady runs."""


def test_the_single_file_holds_the_corpus_and_the_runner_as_in_the_project(built: Path) -> None:
    with zipfile.ZipFile(built) as inside:
        held = {
            name.removeprefix(unpack.PAYLOAD): inside.read(name)
            for name in inside.namelist()
            if name.startswith(unpack.PAYLOAD)
        }
    data = [p for p in (ROOT / "scenarios").rglob("*") if p.suffix in (".jsonl", ".gz", ".json")]
    runner = [p for d in ("bridge", "model", "impl") for p in (ROOT / d).rglob("*.py")]
    assert len(data) > 2 * len(SCENARIOS)
    # Left out: the build of the engine's C planner; bridge/__init__.py's version
    # is stamped with the commit (test_it_says_its_version...).
    shipped = [p for p in runner if p.name != "build.py" and p != ROOT / "bridge" / "__init__.py"]
    for path in data + shipped:
        name = str(path.relative_to(ROOT))
        assert held.get(name) == path.read_bytes(), f"{name} is not bundled as in the project"


def test_the_single_file_replays_bundled_scenarios_from_an_empty_directory(warm_pyz: Path) -> None:
    only = [arg for name in FAMILIES for arg in ("--only", name)]
    reports = ("--junit-xml", "r.xml", "--json", "r.json", "--report", "pages")
    done = run(warm_pyz, "corpus", "--engine", "reference", "--jobs", "2", *only, *reports)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert f"ALL {len(FAMILIES)} SCENARIOS AGREE" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    report = json.loads((warm_pyz.parent / "r.json").read_text())
    with zipfile.ZipFile(warm_pyz) as inside:
        schema = json.loads(inside.read(unpack.PAYLOAD + "bridge/report.schema.json"))
    jsonschema.validate(report, schema)
    assert report["engine_name"] == "optchat-spec impl"
    assert report["counts"] == {"ok": len(FAMILIES)}
    assert report["corpus_version"] == corpus_version()
    cases = list(ET.parse(warm_pyz.parent / "r.xml").getroot().iter("testcase"))
    assert len(cases) == len(FAMILIES) and not [case for case in cases if list(case)]
    assert sorted(p.name for p in warm_pyz.parent.iterdir()) == [
        "optchat-spec.pyz",
        "pages",
        "r.json",
        "r.xml",
    ]
    assert [case["path"] for case in report["scenarios"]] == [
        f"corpus/{name}.jsonl" for name in sorted(FAMILIES)
    ]
    assert sorted(case.get("file") for case in cases) == [
        f"corpus/{name}.jsonl" for name in sorted(FAMILIES)
    ]
    (folder,) = cached(warm_pyz)
    for written in ("r.json", "r.xml", "pages/index.html"):
        text = (warm_pyz.parent / written).read_text()
        assert folder.name not in text and ".cache" not in text, written
        assert "corpus/late_1500.jsonl" in text, written


def test_an_example_engine_runs_by_its_name_from_the_single_file(warm_pyz: Path) -> None:
    """The example engines ship as data; one starts by its name, its imports
    of `impl` and its path to scenarios/profiles/ reached from the unpacked folder."""
    argv = ["corpus", "--engine", "example:partial --declare", "--only", "zoom_0"]
    done = run(warm_pyz, *argv, "--only", "refused_utf8_0", "--shrink-tries", "0")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "SKIPPED zoom_0.jsonl" in done.stdout and "ok   refused_utf8_0" in done.stdout
    assert "declared deviations: retry tick; empty_reply fails" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_it_says_its_version_and_that_it_is_not_a_release(warm_pyz: Path) -> None:
    done = run(warm_pyz, "--version")
    assert done.returncode == 0, done.stderr
    name, version, rest = done.stdout.strip().split(" ", 2)
    assert (name, rest) == ("optchat-spec", f"(corpus version {corpus_version()})")
    assert version.startswith(source_version()) and ".dev" in version
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if head.returncode == 0:
        assert f"+g{head.stdout.strip()[:12]}" in version


def test_the_payload_is_unpacked_once_and_repaired_when_changed(unpacked_pyz: Path) -> None:
    """From a copy of the cache a first run filled: its files hashed again
    (their change times are the copy's), kept, and each repair unpacks."""
    assert run(unpacked_pyz, "files").returncode == 0
    (folder,) = cached(unpacked_pyz)
    cli = folder / "bridge" / "cli" / "__init__.py"
    assert cli.read_bytes() == (ROOT / "bridge" / "cli" / "__init__.py").read_bytes()
    # Compiled at unpacking: also what `files` does not import.
    assert list((folder / "bridge" / "outputs" / "__pycache__").glob("page.*.pyc"))
    cli.write_text("raise SystemExit(99)\n")
    listed = run(unpacked_pyz, "files")
    assert listed.returncode == 0, listed.stderr
    assert cached(unpacked_pyz) == [folder], "a second folder for the same build"
    assert cli.read_bytes() == (ROOT / "bridge" / "cli" / "__init__.py").read_bytes()
    # The same size, its modification time set back: the stamp still sees it.
    before = cli.stat()
    cli.write_bytes(b"#" * before.st_size)
    os.utime(cli, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert run(unpacked_pyz, "files").returncode == 0
    assert cli.read_bytes() == (ROOT / "bridge" / "cli" / "__init__.py").read_bytes()
    spec = next(line for line in listed.stdout.splitlines() if line.startswith("spec:"))
    assert Path(spec.split(":", 1)[1].strip()).read_bytes() == (ROOT / "SPEC.md").read_bytes()


@pytest.mark.more  # four first runs, each unpacking the whole payload: `make test-more`
def test_first_runs_at_once_unpack_without_a_clash(pyz: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(pyz.parent.parent / "home")}
    started = [
        subprocess.Popen(
            [str(PYTHON), "-I", zipapp.NAME, "--version"],
            cwd=pyz.parent,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    said = [process.communicate(timeout=120) for process in started]
    assert [p.returncode for p in started] == [0] * 4, said
    assert len({out for out, _ in said}) == 1
    (folder,) = cached(pyz)
    assert not folder.name.startswith(".")


def test_an_unwritable_cache_falls_back_to_a_folder_of_the_users_own(
    pyz: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {"XDG_CACHE_HOME": str(blocker / "cache"), "TMPDIR": str(temp)}
    assert run(pyz, "--version", **env).returncode == 0
    own = temp / f"optchat-spec-{os.getuid()}"
    (folder,) = own.iterdir()
    assert folder.name.startswith(source_version())
    # One that others may write is never run from: a scratch folder instead,
    # gone after the run.
    own.chmod(0o777)
    done = run(pyz, "--version", **env)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in temp.iterdir()) == [own.name]


def test_a_damaged_archive_is_one_line_and_exit_2(pyz: Path) -> None:
    with zipfile.ZipFile(pyz) as archive:
        member = archive.getinfo("runner/bridge/PROTOCOL.md")
        start = member.header_offset
    data = bytearray(pyz.read_bytes())
    # a byte inside the member's compressed data (past its local header)
    at = start + 30 + len(member.filename) + len(member.extra) + 10
    data[at] ^= 0xFF
    pyz.write_bytes(bytes(data))
    done = run(pyz, "--version")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "cannot unpack the runner" in done.stderr


def test_the_laws_are_not_in_the_single_file(warm_pyz: Path) -> None:
    done = run(warm_pyz, "laws")
    assert done.returncode == 2 and "`laws` extra" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
