"""The kit as its users install it. The wheel, built by pip from a copy of
the project with no package index (the in-tree backend needs nothing),
holds the runner's packages and the laws with their data (the corpus, its
transcripts and version, the profiles, the schemas, PROTOCOL.md, SPEC.md),
none of the clone's tools, and declares no dependency. Installed with
nothing else into a fresh virtual environment, its `optchat-spec` command
replays the bundled corpus against `impl.protocol` from an empty directory,
writes a JUnit report that a JUnit parser reads, and takes a known-failures
list both ways. `pip install --no-build-isolation` works as well, with
nothing but pip."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from bridge.formats.layout import expected_path
from tests.bridge.test_corpus_cli import copy_corpus, tamper
from tests.packaging.kits import NOT_SHIPPED, PIP, ROOT, Installed, bare_env, bare_venv

SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios" / "corpus").glob("*.jsonl"))
TRANSCRIPTS = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "scenarios" / "expected").rglob("*.jsonl.gz")
)
pytestmark = pytest.mark.xdist_group("installed")
"""One wheel and one environment for the session (a module fixture is made again
when xdist runs another module's tests in between), on one worker under
`pytest -n --dist loadgroup`."""


def source_version() -> str:
    """The version bridge/__init__.py declares, read as text."""
    found = re.search(
        r'^__version__ = "(.+)"$', (ROOT / "bridge" / "__init__.py").read_text(), re.M
    )
    assert found, "bridge/__init__.py declares no __version__"
    return found.group(1)


def assert_agrees_on_whole_corpus(done: subprocess.CompletedProcess[str], junit: Path) -> None:
    """A corpus run of every bundled scenario agreed, and said so in its JUnit report."""
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert f"ALL {len(SCENARIOS)} SCENARIOS AGREE" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    suite = ET.parse(junit).getroot()
    cases = list(suite.iter("testcase"))
    assert len(cases) == len(SCENARIOS) >= 29
    assert sorted(case.get("name", "") for case in cases) == SCENARIOS
    assert suite.get("failures") == "0" and suite.get("errors") == "0"
    assert not [case for case in cases if list(case)], "a case failed, erred or was skipped"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["corpus_version"] == str(corpus_version())


def corpus_version() -> int:
    held = json.loads((ROOT / "scenarios" / "expected" / "CORPUS.json").read_text())
    return int(held["version"])


def test_the_wheel_holds_the_packages_and_their_data(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(info).decode()
        entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
        spec = wheel.read("bridge/SPEC.md")
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"model", "laws", "impl", "bridge", "scenarios"}
    # The clone's tools, which need what a runner install lacks (mypyc,
    # numpy, mutmut, the project's tests), are not shipped.
    for tool in ("impl/build.py", "scenarios/generate.py", "laws/mutants.py", "laws/mutation.py"):
        assert tool not in names, tool
    assert (ROOT / "impl" / "build.py").exists() and (ROOT / "laws" / "mutants.py").exists()
    assert {f"scenarios/corpus/{s}.jsonl" for s in SCENARIOS} <= names
    assert set(TRANSCRIPTS) <= names and len(TRANSCRIPTS) >= 2 * len(SCENARIOS)
    for data in (
        "scenarios/expected/CORPUS.json",
        "scenarios/profiles/deviant.json",
        "scenarios/schema.json",
        "scenarios/transcript.schema.json",
        "scenarios/README.md",
        "bridge/answer.schema.json",
        "bridge/report.schema.json",
        "bridge/diagnosis.schema.json",
        "bridge/matrix.schema.json",
        "bridge/PROTOCOL.md",
        "laws/LAWS.lock",
        "laws/proofs/push_bounded.py",
    ):
        assert data in names, data
    assert spec == (ROOT / "SPEC.md").read_bytes()
    # Built from a copy outside git: the version as declared, a development
    # version, so that nobody takes it for a release.
    assert f"\nVersion: {source_version()}\n" in metadata and ".dev" in source_version()
    assert "License-Expression: MIT" in metadata or "License: MIT" in metadata
    # Every declared requirement belongs to an extra: the runner needs none.
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires), requires
    assert re.search(r"^optchat-spec = bridge\.cli:main$", entry_points, re.M)


@pytest.mark.more  # a whole corpus through an engine process: `make test-more`
def test_the_installed_command_agrees_on_the_bundled_corpus(installed: Installed) -> None:
    began = time.monotonic()
    done = installed.run(
        "corpus", "--engine", installed.engine, "--jobs", "2", "--junit-xml", "out.xml"
    )
    seconds = time.monotonic() - began
    assert_agrees_on_whole_corpus(done, installed.empty / "out.xml")
    print(f"the whole corpus through the installed command: {seconds:.1f} s")


def test_every_shipped_runner_module_imports_without_any_extra(installed: Installed) -> None:
    """Each module of the runner's packages imports in the bare environment:
    none needs a package the runner does not declare (the laws do: their
    extra)."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        modules = sorted(
            name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            for name in wheel.namelist()
            if name.endswith(".py")
            and name.split("/")[0] in ("bridge", "model", "impl", "scenarios")
            and not name.startswith("bridge/examples/")  # programs the runner starts
        )
    assert len(modules) > 40 and "impl.protocol" in modules and "bridge.cli" in modules
    # The fuzz strategies and fuzz's draws are the runner modules with an extra
    # of their own (`fuzz`: Hypothesis); `optchat-spec fuzz` imports them only
    # when it runs.
    modules.remove("scenarios.strategies")
    modules.remove("bridge.runs.fuzz_draws")
    modules.remove("scenarios.database")  # laws and fuzz: Hypothesis, the same extras
    script = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    done = subprocess.run(
        [str(installed.python), "-c", script, *modules],
        cwd=installed.empty,
        env=installed.env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.more  # pip building and installing from a source tree, end to end: `make test-more`
def test_pip_installs_the_project_offline_without_build_isolation(tmp_path: Path) -> None:
    """`pip install --no-index --no-build-isolation .` into an environment
    holding nothing: the backend is in the tree (pyproject.toml)."""
    source = tmp_path / "optchat-spec"
    shutil.copytree(ROOT, source, ignore=NOT_SHIPPED)
    python = bare_venv(tmp_path / "v")
    done = subprocess.run(
        [
            *PIP,
            "--python",
            str(python),
            "install",
            "--no-index",
            "--no-build-isolation",
            str(source),
        ],
        env=bare_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    version = subprocess.run(
        [str(tmp_path / "v" / "bin" / "optchat-spec"), "--version"],
        cwd=tmp_path,
        env=bare_env(),
        capture_output=True,
        text=True,
    )
    assert version.stdout.startswith(f"optchat-spec {source_version()} "), version


def test_the_installed_command_runs_from_its_own_packages(installed: Installed) -> None:
    site = installed.venv / "lib"
    where = subprocess.run(
        [str(installed.python), "-c", "import bridge, impl, model, scenarios, laws; print(bridge)"],
        cwd=installed.empty,
        env=installed.env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(site) in where.stdout, where.stdout
    version = installed.run("--version")
    assert version.stdout.strip() == (
        f"optchat-spec {source_version()} (corpus version {corpus_version()})"
    )
    listed = installed.run("files")
    assert listed.returncode == 0, listed.stderr
    paths = {
        what: Path(path.strip())
        for what, _, path in (line.partition(":") for line in listed.stdout.splitlines())
    }
    assert paths and all(path.is_relative_to(site) and path.exists() for path in paths.values())
    assert paths["spec"].read_bytes() == (ROOT / "SPEC.md").read_bytes()
    assert paths["protocol"].read_bytes() == (ROOT / "bridge" / "PROTOCOL.md").read_bytes()
    # The laws are an extra: without it, a usage error naming it, no traceback.
    laws = installed.run("laws")
    assert laws.returncode == 2 and "`laws` extra" in laws.stderr
    assert "Traceback" not in laws.stdout + laws.stderr


def test_an_example_engine_runs_by_its_name_from_the_installed_command(
    installed: Installed,
) -> None:
    done = installed.run(
        "corpus", "--engine", "example:ahead-bug", "--only", "refused_utf8_0", "--shrink-tries", "0"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL refused_utf8_0.jsonl" in done.stdout and "(SPEC 4)" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_known_failures_both_ways_from_the_installed_command(
    installed: Installed, tmp_path: Path
) -> None:
    known = tmp_path / "known-failures.txt"
    known.write_text("zoom_1  # listed, but it agrees\n")
    done = installed.run(
        "corpus", "--engine", installed.engine, "--only", "zoom_1", "--known-failures", str(known)
    )
    assert done.returncode == 1 and "UNEXPECTED PASS" in done.stdout, done.stdout + done.stderr

    folder = copy_corpus(tmp_path, ["random_00", "zoom_1"])
    tamper(expected_path(folder / "random_00.jsonl"))
    known.write_text("# a transcript tampered on purpose\nrandom_00\n")
    done = installed.run(
        "corpus",
        str(folder),
        "--engine",
        installed.engine,
        "--known-failures",
        str(known),
        "--junit-xml",
        str(tmp_path / "known.xml"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "AS LISTED: of 2 scenarios, 1 agrees and 1 fails as the known failures say" in done.stdout
    )
    suite = ET.parse(tmp_path / "known.xml").getroot()
    skipped = {case.get("name"): case.find("skipped") for case in suite.iter("testcase")}
    assert skipped["zoom_1"] is None and skipped["random_00"] is not None
    assert "expected failure" in (skipped["random_00"].get("message") or "")
