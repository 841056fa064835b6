"""docs/ci.md's workflows are GitHub Actions workflows as written: YAML
that parses, each installing the version the project is at (pinned by its
git tag, in an isolated environment), building its engine, replaying the
corpus with a known-failures list into a JUnit report, and uploading the
report even when the run fails. docs/ci-local.sh pins the same version.
(tests/packaging/test_install.py runs the script.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

import bridge.cli as cli
from tests.packaging.test_install import changelog_version

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ci.md"


def workflows() -> list[dict[str, Any]]:
    blocks = re.findall(r"^```yaml\n(.*?)^```$", DOC.read_text(), re.M | re.S)
    return [yaml.safe_load(block) for block in blocks]


def commands(workflow: dict[str, Any]) -> list[str]:
    """The shell commands of every step, one string per step."""
    (job,) = workflow["jobs"].values()
    return [step["run"] for step in job["steps"] if "run" in step]


def test_two_workflows_one_per_engine_language() -> None:
    found = workflows()
    assert len(found) == 2
    builds = [" ".join(commands(w)) for w in found]
    assert "cargo build" in builds[0] and "npm ci" in builds[1]
    for workflow in found:
        # PyYAML reads the bare key `on` as true (YAML 1.1); GitHub reads it as "on".
        assert {"push", "pull_request"} <= set(workflow.get("on") or workflow[True])


def test_each_installs_the_pinned_version_builds_runs_and_uploads() -> None:
    tag = f"@v{changelog_version()}"
    for workflow in workflows():
        (job,) = workflow["jobs"].values()
        assert job["env"]["OPTCHAT_SPEC"].endswith(tag)
        runs = commands(workflow)
        install = next(r for r in runs if "pipx install" in r)
        assert '"$OPTCHAT_SPEC"' in install
        build = next(r for r in runs if "cargo build" in r or "npm ci" in r)
        ran = next(r for r in runs if "optchat-spec corpus" in r)
        assert runs.index(install) < runs.index(build) < runs.index(ran)
        corpus = shlex.split(ran)
        options = dict(zip(corpus[2::2], corpus[3::2], strict=True))
        assert set(options) == {"--engine", "--known-failures", "--junit-xml", "--json"}
        parsed = cli.parser().parse_args(corpus[1:])  # options the runner has
        assert parsed.command == "corpus" and parsed.junit_xml == Path(options["--junit-xml"])
        (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-art")]
        assert upload["if"] == "always()"
        assert Path(options["--junit-xml"]).parent == Path(upload["with"]["path"])


def test_the_local_script_pins_the_same_version() -> None:
    script = (ROOT / "docs" / "ci-local.sh").read_text()
    (pinned,) = re.findall(r'OPTCHAT_SPEC:-([^}"]+)', script)
    (workflow_pin,) = {w["jobs"]["conformance"]["env"]["OPTCHAT_SPEC"] for w in workflows()}
    assert pinned == workflow_pin
    assert (ROOT / "docs" / "ci-local.sh").stat().st_mode & 0o111, "not executable"
