"""The starter adapters of examples/ (JavaScript for Node, Rust on the
standard library) through the runner, as an engine author first runs them:
out of the box each agrees on `empty_chat` and, on the `refused_kind_*`
scenarios, refuses every message of an unknown kind that comes before the
first event it does not take, and the runner then reports the scenario
SKIPPED with the adapter's reason; no event's answer was compared, so the
run is not green: NOTHING COMPARED, exit 1 (docs/first-engine.md). A copy
that names the wrong rule is caught at those refusals."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from scenarios.format import read
from tests.cli.helpers import run as cli_run
from tests.examples.toolchain import toolchain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CHOSEN = ["--only", "empty_chat", "--only", "refused_kind_*"]
REFUSED = "refused_kind_0", "refused_kind_1", "refused_kind_2"
REFUSAL = re.compile(r'(refused"?: )"kind"')
"""The refusal as both adapters write it (a JavaScript object, JSON text)."""

pytestmark = pytest.mark.xdist_group("starters")


def leading_refusals(name: str) -> int:
    """How many events of a corpus scenario come before its first accepted one."""
    lines = (ROOT / "scenarios" / "corpus" / f"{name}.jsonl").read_text().split("\n")[1:-1]
    return next(k for k, line in enumerate(lines) if "refused" not in json.loads(line))


@pytest.fixture
def corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[[list[str]], tuple[int, dict[str, dict], str]]:
    """The runner, in this process from the project's root, on the chosen
    scenarios, one job: its exit code, each scenario's entry of the JSON
    report by name, and its last line (its FAILs' causes from their first
    divergences alone: nothing shrunk, nothing written where it runs). The
    adapter declares sessions, so the job starts it once, however its
    scenarios end (ok, SKIPPED at an event answered `unsupported`, FAIL):
    one start for the 4 scenarios."""
    monkeypatch.chdir(ROOT)

    def run(engine: list[str]) -> tuple[int, dict[str, dict], str]:
        report, starts = tmp_path / "report.json", tmp_path / "starts"
        starts.unlink(missing_ok=True)
        counted = ["sh", "-c", f'echo >> {shlex.quote(str(starts))}; exec "$@"', "sh", *engine]
        argv = ["corpus", "--engine", shlex.join(counted), *CHOSEN, "--jobs", "1"]
        code, out, _ = cli_run([*argv, "--json", str(report), "--shrink-tries", "0"], capsys)
        assert report.exists(), out
        scenarios = json.loads(report.read_text())["scenarios"]
        assert len(starts.read_text().splitlines()) == 1, out
        found = {s["scenario"].removesuffix(".jsonl"): s for s in scenarios}
        return code, found, out.splitlines()[-1]

    return run


Corpus = Callable[[list[str]], tuple[int, dict[str, dict], str]]


def assert_agrees_out_of_the_box(engine: list[str], corpus: Corpus) -> None:
    code, found, last = corpus(engine)
    # Every event it was sent it answered `unsupported` (or it refused the
    # messages before): the scenarios are SKIPPED, and the run compared no
    # event, so it is not green.
    assert code == 1, found
    events = sum(len(read(ROOT / "scenarios" / "corpus" / f"{n}.jsonl").events) for n in REFUSED)
    assert last.startswith(f"NOTHING COMPARED: 0 of {events} events; 4 scenarios: 1 ok, 3 SKIPPED")
    assert found["empty_chat"]["status"] == "ok"
    # Scenarios whose first events are refusals: those were compared, and agreed.
    assert [leading_refusals(name) > 0 for name in REFUSED] == [False, True, True]
    for name in REFUSED:
        assert found[name]["status"] == "SKIPPED", found[name]
        assert "not handled by the starter adapter yet" in found[name]["reason"]


def assert_a_wrong_rule_is_caught(engine: list[str], corpus: Corpus) -> None:
    code, found, _ = corpus(engine)
    assert code == 1
    assert found["empty_chat"]["status"] == "ok"
    assert [found[name]["status"] for name in REFUSED] == ["SKIPPED", "FAIL", "FAIL"]
    assert "refused" in found["refused_kind_1"]["reason"]


def broken(source: Path, into: Path) -> Path:
    """A copy of the starter at `source` whose refusal names the wrong rule."""
    shutil.copytree(source, into, ignore=shutil.ignore_patterns("target"))
    (adapter,) = [p for p in into.rglob("*") if p.suffix in (".mjs", ".rs")]
    text, count = REFUSAL.subn(r'\1"utf8"', adapter.read_text())
    assert count == 1
    adapter.write_text(text)
    return into


def test_the_node_starter_agrees_out_of_the_box(corpus: Corpus) -> None:
    node = toolchain("node")
    assert_agrees_out_of_the_box([node, str(EXAMPLES / "node" / "bridge.mjs")], corpus)


def test_a_node_starter_naming_the_wrong_rule_is_caught(tmp_path: Path, corpus: Corpus) -> None:
    node = toolchain("node")
    copy = broken(EXAMPLES / "node", tmp_path / "node")
    assert_a_wrong_rule_is_caught([node, str(copy / "bridge.mjs")], corpus)


def cargo_build(crate: Path, target: Path) -> Path:
    """The starter crate built offline into `target`; its binary."""
    cargo = toolchain("cargo")
    done = subprocess.run(
        [cargo, "build", "--offline", "--locked", "--quiet", "--target-dir", str(target)],
        cwd=crate,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return target / "debug" / "bridge"


def test_the_rust_starter_agrees_out_of_the_box(tmp_path: Path, corpus: Corpus) -> None:
    binary = cargo_build(EXAMPLES / "rust", tmp_path / "target")
    assert_agrees_out_of_the_box([str(binary)], corpus)


def test_a_rust_starter_naming_the_wrong_rule_is_caught(tmp_path: Path, corpus: Corpus) -> None:
    copy = broken(EXAMPLES / "rust", tmp_path / "rust")
    binary = cargo_build(copy, tmp_path / "target")
    assert_a_wrong_rule_is_caught([str(binary)], corpus)


def test_a_missing_toolchain_skips_unless_it_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPTCHAT_REQUIRE_TOOLCHAINS", raising=False)
    with pytest.raises(pytest.skip.Exception, match=".ci/run installs them"):
        toolchain("no-such-toolchain-here")
    monkeypatch.setenv("OPTCHAT_REQUIRE_TOOLCHAINS", "1")
    with pytest.raises(pytest.fail.Exception, match="OPTCHAT_REQUIRE_TOOLCHAINS is set"):
        toolchain("no-such-toolchain-here")
