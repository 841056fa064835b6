"""docs/ci.md's nightly campaign: a workflow that actionlint and zizmor
(its auditor persona, the strictest) pass, with a matrix of shards for
fuzz, the deep laws and the corpus, every command one the runner (or the
laws) takes, the shared database in the variable the runner reads (its
secret in an environment of its own), the corpus reports joined by
merge-reports, the zipapp pinned as the other workflows pin it (and moved
with them by a release), and actions pinned by the commits the other
workflows use."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

import bridge.cli as cli
from laws.__main__ import parser as laws_parser
from release import cut
from scenarios.database import VARIABLE
from tests.packaging.test_ci_docs import DOC, PINNED_ACTION, blocks, job, lint, workflows


def tagged(tag: str, text: str | None = None) -> tuple[str, dict[str, Any]]:
    """The workflow of the block ```yaml TAG, as text and as read."""
    found = re.findall(rf"^```yaml {tag}\n(.*?)^```$", text or DOC.read_text(), re.M | re.S)
    (block,) = found
    return block, yaml.safe_load(block)


def nightly(text: str | None = None) -> tuple[str, dict[str, Any]]:
    return tagged("nightly", text)


def steps(workflow: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return list(workflow["jobs"][name]["steps"])


def commands(run: str) -> list[list[str]]:
    """The shell lines of a step, continuations joined, the shard's
    variables given values."""
    text = run.replace("\\\n", " ")
    for name, value in (("$SHARD/$SHARDS", "2/4"), ("$SEED", "7"), ("$RUNNER_TEMP", "/t")):
        text = text.replace(f'"{name}"', value).replace(name, value)
    return [shlex.split(line) for line in text.splitlines() if line.strip()]


def test_actionlint_and_zizmor_find_nothing(tmp_path: Path) -> None:
    block, _ = nightly()
    checked = lint("actionlint", "-no-color", workflow=block, tmp_path=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    audited = lint("zizmor", "--offline", "--persona", "auditor", workflow=block, tmp_path=tmp_path)
    assert audited.returncode == 0, audited.stdout + audited.stderr


def test_a_matrix_of_shards_for_fuzz_the_deep_laws_and_the_corpus() -> None:
    _, workflow = nightly()
    assert set(workflow.get("on") or workflow[True]) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {"contents": "read"}
    search = workflow["jobs"]["search"]
    matrix = search["strategy"]["matrix"]
    assert matrix["search"] == ["fuzz", "laws-deep", "corpus"]
    assert matrix["shard"] == list(range(1, int(workflow["env"]["SHARDS"]) + 1))
    assert search["strategy"]["fail-fast"] is False
    assert search["env"][VARIABLE] == "${{ secrets.OPTCHAT_DATABASE }}"
    assert search["environment"] == "optchat-spec-nightly"  # its secret kept there
    for job_ in workflow["jobs"].values():
        assert 0 < job_["timeout-minutes"] <= 60
    ran = {}
    for step in steps(workflow, "search"):
        for line in commands(step.get("run", "")):
            if "fuzz" in line or "corpus" in line or "laws" in line:
                ran[step["if"]] = line
    fuzz = ran["matrix.search == 'fuzz'"]
    assert fuzz[:2] == ["python3", "/t/optchat-spec.pyz"]
    parsed = cli.parser().parse_args(fuzz[2:])
    assert (parsed.command, parsed.shard, parsed.seed) == ("fuzz", "2/4", 7)
    corpus = cli.parser().parse_args(ran["matrix.search == 'corpus'"][2:])
    assert corpus.shard == "2/4" and corpus.json and corpus.junit_xml
    laws = laws_parser().parse_args(ran["matrix.search == 'laws-deep'"][3:])
    assert (laws.profile, laws.shard, laws.seed) == ("deep", "2/4", 7)


def test_the_corpus_reports_are_joined_into_one() -> None:
    _, workflow = nightly()
    merge = workflow["jobs"]["merge"]
    assert merge["needs"] == "search" and merge["if"] == "always()"
    joined = [
        line
        for step in steps(workflow, "merge")
        for line in commands(step.get("run", ""))
        if "merge-reports" in line
    ]
    outs = []
    for line in joined:
        parsed = cli.parser().parse_args(line[2:])
        assert parsed.command == "merge-reports" and parsed.inputs
        outs.append(parsed.out)
    assert sorted(p.suffix for p in outs) == [".json", ".xml"]
    (upload,) = [s for s in steps(workflow, "merge") if "upload-artifact@" in s.get("uses", "")]
    assert {p.parent for p in outs} == {Path(upload["with"]["path"])}


def test_pins_are_the_other_workflows_and_move_with_them() -> None:
    block, workflow = nightly()
    env = {k: str(v) for k, v in workflow["env"].items() if k.startswith("OPTCHAT_SPEC_")}
    assert env == {k: str(v) for k, v in job(workflows()[0])["env"].items()}
    moved = nightly(cut.pinned(DOC.read_text(), "9.8.7", "ab" * 32))[1]["env"]
    assert (moved["OPTCHAT_SPEC_VERSION"], moved["OPTCHAT_SPEC_SHA256"]) == ("9.8.7", "ab" * 32)
    others = "\n".join(blocks(DOC.read_text()))
    uses = [line for line in block.splitlines() if "uses:" in line]
    assert uses and all(PINNED_ACTION.match(line) for line in uses), uses
    for line in uses:
        pinned = PINNED_ACTION.match(line)
        assert pinned is not None and f"{pinned[1]}@{pinned[2]}" in others, line


def test_the_engines_side_by_side_each_engine_s_report_made_into_one_page(
    tmp_path: Path,
) -> None:
    """docs/ci.md's side-by-side workflow: linted as the others are, pinned
    as they are (and moved with them), each engine's corpus run writing its
    pages beside its report and uploading both, and a job after them all
    that makes the matrix from every report it downloads, beside them."""
    block, workflow = tagged("side-by-side")
    checked = lint("actionlint", "-no-color", workflow=block, tmp_path=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    audited = lint("zizmor", "--offline", "--persona", "auditor", workflow=block, tmp_path=tmp_path)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert set(workflow.get("on") or workflow[True]) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {"contents": "read"}
    env = {k: str(v) for k, v in workflow["env"].items()}
    assert env == {k: str(v) for k, v in job(workflows()[0])["env"].items()}
    moved = tagged("side-by-side", cut.pinned(DOC.read_text(), "9.8.7", "ab" * 32))[1]["env"]
    assert (moved["OPTCHAT_SPEC_VERSION"], moved["OPTCHAT_SPEC_SHA256"]) == ("9.8.7", "ab" * 32)
    others = "\n".join(blocks(DOC.read_text()))
    for line in (line for line in block.splitlines() if "uses:" in line):
        pinned = PINNED_ACTION.match(line)
        assert pinned is not None and f"{pinned[1]}@{pinned[2]}" in others, line

    corpus, together = workflow["jobs"]["corpus"], workflow["jobs"]["side-by-side"]
    engines = corpus["strategy"]["matrix"]["include"]
    assert [e["engine"] for e in engines] == ["rust", "node"]
    assert corpus["env"] == {"NAME": "${{ matrix.engine }}", "ENGINE": "${{ matrix.command }}"}
    ran = [line for step in steps(workflow, "corpus") for line in commands(step.get("run", ""))]
    (run,) = [line for line in ran if "corpus" in line]
    parsed = cli.parser().parse_args([a.replace("$NAME", "node") for a in run[2:]])
    assert parsed.command == "corpus" and parsed.engine == "$ENGINE"
    assert parsed.json.parent == parsed.report  # its pages beside its report
    (upload,) = [s for s in steps(workflow, "corpus") if "upload-artifact@" in s.get("uses", "")]
    assert upload["if"] == "always()" and Path(upload["with"]["path"]) == parsed.report.parent

    assert together["needs"] == "corpus" and together["if"] == "always()"
    made = [line for s in steps(workflow, "side-by-side") for line in commands(s.get("run", ""))]
    download = next(line for line in made if line[:3] == ["gh", "run", "download"])
    into = Path(download[download.index("--dir") + 1])
    (matrix,) = [cli.parser().parse_args(line[2:]) for line in made if "matrix" in line]
    assert matrix.command == "matrix" and matrix.json is not None
    # Each downloaded artifact is a folder of `into` holding NAME/report.json.
    assert [str(r) for r in matrix.reports] == [f"{into}/*/*/report.json"]
    assert matrix.output.parent == matrix.json.parent == into
    (kept,) = [
        s for s in steps(workflow, "side-by-side") if "upload-artifact@" in s.get("uses", "")
    ]
    assert Path(kept["with"]["path"]) == into
