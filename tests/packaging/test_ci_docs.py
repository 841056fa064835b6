"""docs/ci.md's workflows are GitHub Actions workflows as written, that
work copied into a new repository: YAML that actionlint and zizmor (its
auditor persona, the strictest) pass, read-only permissions, a time limit,
every action pinned by a full commit with its version beside it, no
credentials left in the checkout; each gets the runner as the pinned
zipapp, checked against its SHA-256, builds its engine, replays the corpus
(with the known-failures list only when the file exists) into both
reports, and uploads them even when the run fails. Their `run` steps, run
in order in a new repository made of a starter adapter (examples/) with
the zipapp served from a local folder, pass. docs/ci-local.sh pins the
same, and works offline from a clone and copied elsewhere, exiting 2 and
leaving nothing half-made when the runner cannot be had."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
import yaml

import bridge.cli as cli
from release import cut, zipapp
from tests.examples.toolchain import toolchain
from tests.packaging.kits import bare_env
from tests.packaging.test_install import SCENARIOS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ci.md"
SCRIPT = ROOT / "docs" / "ci-local.sh"
BIN = Path(sys.executable).parent
PINNED_ACTION = re.compile(r"^\s+(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$")


def blocks(text: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```$", text, re.M | re.S)


def workflows(text: str | None = None) -> list[dict[str, Any]]:
    return [yaml.safe_load(block) for block in blocks(text or DOC.read_text())]


def job(workflow: dict[str, Any]) -> dict[str, Any]:
    (only,) = workflow["jobs"].values()
    return only


def runs(workflow: dict[str, Any]) -> list[str]:
    """The shell commands of every step, one string per step."""
    return [step["run"] for step in job(workflow)["steps"] if "run" in step]


def pins(text: str) -> dict[str, str]:
    """The pin of ci-local.sh: each `${NAME:-default}`."""
    return dict(re.findall(r'^(OPTCHAT_SPEC_\w+)="\$\{\1:-([^}]*)\}"$', text, re.M))


def test_two_workflows_one_per_engine_language() -> None:
    found = workflows()
    assert len(found) == 2
    builds = [" ".join(runs(w)) for w in found]
    assert "cargo build" in builds[0] and "npm ci" in builds[1]
    for workflow in found:
        # PyYAML reads the bare key `on` as true (YAML 1.1); GitHub reads it as "on".
        assert {"push", "pull_request"} <= set(workflow.get("on") or workflow[True])


def test_each_is_locked_down() -> None:
    for text, workflow in zip(blocks(DOC.read_text()), workflows(), strict=True):
        assert workflow["permissions"] == {"contents": "read"}
        assert 0 < job(workflow)["timeout-minutes"] <= 60
        uses = [line for line in text.splitlines() if "uses:" in line]
        assert uses and all(PINNED_ACTION.match(line) for line in uses), uses
        (checkout,) = [
            s for s in job(workflow)["steps"] if "actions/checkout@" in s.get("uses", "")
        ]
        assert checkout["with"]["persist-credentials"] is False


def test_each_gets_the_pinned_zipapp_builds_runs_and_uploads() -> None:
    for workflow in workflows():
        env = job(workflow)["env"]
        assert set(env) == {"OPTCHAT_SPEC_VERSION", "OPTCHAT_SPEC_SHA256", "OPTCHAT_SPEC_RELEASES"}
        steps = runs(workflow)
        get = next(r for r in steps if "curl" in r)
        assert "$OPTCHAT_SPEC_RELEASES/v$OPTCHAT_SPEC_VERSION/optchat-spec.pyz" in get
        assert '"$OPTCHAT_SPEC_SHA256  $RUNNER_TEMP/optchat-spec.pyz" | sha256sum --check' in get
        build = next(r for r in steps if "cargo build" in r or "npm ci" in r)
        ran = next(r for r in steps if 'optchat-spec.pyz" corpus' in r)
        assert steps.index(get) < steps.index(build) < steps.index(ran)
        assert "if [ -f conformance/known-failures.txt ]" in ran
        assert 'held+=(--min-compared "$(cat conformance/min-compared.txt)")' in ran
        command = shlex.split(ran.rsplit("fi\n", 1)[1].replace("\\\n", " "))
        corpus = [a for a in command[2:] if a != "${held[@]}"]
        parsed = cli.parser().parse_args(corpus)  # options the runner has
        assert parsed.command == "corpus" and parsed.junit_xml and parsed.json
        # The whole corpus: the runner's default, which test_install.py replays in full.
        assert not parsed.only and not parsed.skip
        (upload,) = [s for s in job(workflow)["steps"] if "upload-artifact@" in s.get("uses", "")]
        assert upload["if"] == "always()"
        assert parsed.junit_xml.parent == Path(upload["with"]["path"]) == parsed.json.parent


def test_the_pins_are_one_and_the_release_step_moves_them_all() -> None:
    script = SCRIPT.read_text()
    envs = [job(w)["env"] for w in workflows()]
    pinned = pins(script)
    for env in envs:
        assert {k: str(v) for k, v in env.items()} == pinned
    assert SCRIPT.stat().st_mode & 0o111, "not executable"
    moved = {"OPTCHAT_SPEC_VERSION": "9.8.7", "OPTCHAT_SPEC_SHA256": "ab" * 32}
    again = workflows(cut.pinned(DOC.read_text(), "9.8.7", "ab" * 32))
    assert all(job(w)["env"] == {**env, **moved} for w, env in zip(again, envs, strict=True))
    assert pins(cut.pinned(script, "9.8.7", "ab" * 32)) == {**pinned, **moved}


def lint(tool: str, *args: str, workflow: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / ".github" / "workflows" / "optchat-spec.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow)
    program = BIN / tool
    assert program.exists(), f"{tool} is not installed: `make venv` installs requirements.lock"
    return subprocess.run(
        [str(program), *args, str(path)], cwd=tmp_path, capture_output=True, text=True
    )


def test_actionlint_and_zizmor_find_nothing(tmp_path: Path) -> None:
    for block in blocks(DOC.read_text()):
        checked = lint("actionlint", "-no-color", workflow=block, tmp_path=tmp_path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        audited = lint(
            "zizmor", "--offline", "--persona", "auditor", workflow=block, tmp_path=tmp_path
        )
        assert audited.returncode == 0, audited.stdout + audited.stderr
    # and they do look: an action by tag, a step that is not a step
    loose = blocks(DOC.read_text())[0]
    unpinned = re.sub(r"actions/checkout@\w+ # \S+", "actions/checkout@v4", loose)
    assert lint("zizmor", "--offline", workflow=unpinned, tmp_path=tmp_path).returncode != 0
    broken = loose.replace("runs-on:", "runs_on:")
    assert lint("actionlint", workflow=broken, tmp_path=tmp_path).returncode != 0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """optchat-spec.pyz of this tree where a release would be:
    (OPTCHAT_SPEC_RELEASES, OPTCHAT_SPEC_VERSION, OPTCHAT_SPEC_SHA256)."""
    releases = tmp_path_factory.mktemp("releases")
    version = str(job(workflows()[0])["env"]["OPTCHAT_SPEC_VERSION"])
    (releases / f"v{version}").mkdir()
    built = zipapp.build(releases / f"v{version}")
    return releases.as_uri(), version, hashlib.sha256(built.read_bytes()).hexdigest()


SOME = ("empty_chat", "refused_kind_*", "zoom_0")
"""Scenarios a starter agrees on and one it skips: the workflow's own corpus
step, told `--only` these, proves its command, reports and exit code; the
whole corpus through an engine is test_install.py's (a stub only skips more)."""


def run_workflow(
    workflow: dict[str, Any], repo: Path, env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    """Each `run` step in order, as GitHub runs it (bash -eo pipefail), up to
    the first that fails; the corpus step on SOME."""
    done = []
    for command in runs(workflow):
        if 'optchat-spec.pyz" corpus' in command:
            command = f"{command.rstrip()} {' '.join(f'--only {shlex.quote(g)}' for g in SOME)}\n"
        step = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        done.append(step)
        if step.returncode != 0:
            break
    return done


@pytest.mark.more  # the documented CI run end to end: `make test-more`
@pytest.mark.xdist_group("starters")
@pytest.mark.parametrize("language", ["rust", "node"])
def test_a_new_repository_made_of_a_starter_passes_its_workflow(
    language: str, served: tuple[str, str, str], tmp_path: Path
) -> None:
    toolchain({"rust": "cargo", "node": "node"}[language])
    workflow = workflows()[["rust", "node"].index(language)]
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / language, repo)
    (tmp_path / "runner").mkdir()
    releases, version, sha256 = served
    env = {
        **bare_env(),
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "OPTCHAT_SPEC_VERSION": version,
        "OPTCHAT_SPEC_SHA256": sha256,
        "OPTCHAT_SPEC_RELEASES": releases,
    }
    # A starter as it comes answers every event `unsupported`: it is checked
    # on nothing, so its corpus step, the last, fails (NOTHING COMPARED).
    steps = run_workflow(workflow, repo, env)
    assert [s.returncode for s in steps] == [0] * (len(runs(workflow)) - 1) + [1], steps[-1].stderr
    assert steps[-1].stdout.splitlines()[-1].startswith("NOTHING COMPARED: 0 of ")
    report = json.loads((repo / "reports" / "optchat-spec.json").read_text())
    statuses = {s["scenario"].removesuffix(".jsonl"): s["status"] for s in report["scenarios"]}
    some = [name for name in SCENARIOS if any(fnmatch(name, glob) for glob in SOME)]
    assert sorted(statuses) == some and statuses["empty_chat"] == "ok"
    assert set(statuses.values()) == {"ok", "SKIPPED"}, report["counts"]
    cases = list(ET.parse(repo / "reports" / "optchat-spec.xml").iter("testcase"))
    assert len(cases) == len(some) + 1 and cases[-1].get("name") == "events compared"
    # A zipapp that is not the pinned one stops the workflow at once.
    wrong = run_workflow(workflow, repo, {**env, "OPTCHAT_SPEC_SHA256": "0" * 64})
    assert len(wrong) == 1 and wrong[0].returncode != 0


def local(script: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script), *args],
        cwd=cwd,
        env={**bare_env(), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


REFERENCE = "impl"
"""The reference engine, in the runner's process: the script is what is tested."""


@pytest.mark.more  # the documented CI run end to end: `make test-more`
def test_the_local_script_from_a_clone_runs_offline_and_cleans_up(tmp_path: Path) -> None:
    """Run from this clone as docs/ci.md shows: the clone's own zipapp, built
    into a temporary folder that is gone afterwards; BUILD run; both
    reports; the known-failures file used when it exists."""
    repo, temp = tmp_path / "repo", tmp_path / "tmp"
    (repo / "conformance").mkdir(parents=True)
    temp.mkdir()
    (repo / "conformance" / "known-failures.txt").write_text("zoom_0  # listed, but agrees\n")
    env = {"ENGINE": REFERENCE, "BUILD": "echo built > built.txt", "TMPDIR": str(temp)}
    done = local(SCRIPT, repo, "--only", "zoom_0", **env)
    zooms = [s for s in SCENARIOS if s.startswith("zoom_")]
    assert done.returncode == 1 and "UNEXPECTED PASS" in done.stdout, done.stdout + done.stderr
    assert (repo / "built.txt").read_text() == "built\n"
    (repo / "conformance" / "known-failures.txt").unlink()
    # The floor's file is read when it exists: one that holds no fraction is a usage error.
    (repo / "conformance" / "min-compared.txt").write_text("most\n")
    done = local(SCRIPT, repo, "--only", "zoom_0", **env)
    assert done.returncode == 2 and "--min-compared: most: not a fraction" in done.stderr
    (repo / "conformance" / "min-compared.txt").write_text("1\n")
    done = local(SCRIPT, repo, "--only", "zoom_*", "--jobs", "2", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"ALL {len(zooms)} SCENARIOS AGREE; compared 1.0000 of the events, at least 1 asked"
        in done.stdout
    )
    suite = ET.parse(repo / "reports" / "optchat-spec.xml").getroot()
    assert sorted(case.get("name", "") for case in suite.iter("testcase")) == zooms
    report = json.loads((repo / "reports" / "optchat-spec.json").read_text())
    assert report["counts"] == {"ok": len(zooms)}
    assert sorted(p.name for p in repo.iterdir()) == ["built.txt", "conformance", "reports"]
    assert list(temp.iterdir()) == []


@pytest.mark.more  # the documented CI run end to end: `make test-more`
def test_the_local_script_copied_elsewhere_downloads_the_pin_once(
    served: tuple[str, str, str], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    script = Path(shutil.copy(SCRIPT, repo / "ci-local.sh"))
    releases, version, sha256 = served
    pin = {
        "OPTCHAT_SPEC_RELEASES": releases,
        "OPTCHAT_SPEC_VERSION": version,
        "ENGINE": REFERENCE,
        "TMPDIR": str(tmp_path),
    }
    wrong = local(script, repo, "--only", "empty_chat", **pin, OPTCHAT_SPEC_SHA256="0" * 64)
    assert wrong.returncode == 2, wrong.stdout + wrong.stderr
    assert wrong.stderr.count("\n") == 1 and "not the pinned OPTCHAT_SPEC_SHA256" in wrong.stderr
    assert sorted(p.name for p in repo.iterdir()) == ["ci-local.sh"]
    done = local(script, repo, "--only", "empty_chat", **pin, OPTCHAT_SPEC_SHA256=sha256)
    assert done.returncode == 0, done.stdout + done.stderr
    kept = repo / ".optchat-spec" / "optchat-spec.pyz"
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == sha256
    gone = {**pin, "OPTCHAT_SPEC_RELEASES": (tmp_path / "nowhere").as_uri()}
    again = local(script, repo, "--only", "empty_chat", **gone, OPTCHAT_SPEC_SHA256=sha256)
    assert again.returncode == 0, "the kept zipapp was fetched again"
    no_engine = local(script, repo, **{k: v for k, v in pin.items() if k != "ENGINE"})
    assert no_engine.returncode == 2 and "set ENGINE" in no_engine.stderr
    missing = local(script, repo, "--only", "empty_chat", **pin, PYTHON="no-such-python")
    assert missing.returncode == 2 and "no-such-python not found" in missing.stderr
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("tmp.")]
