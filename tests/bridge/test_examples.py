"""The example engines by name (`--engine example:NAME`, bridge/wire/examples.py):
every program in tests/bridge/engines/ is known by its file's name, `-`
for `_`, and ships under that name in the wheel and the zipapp (the
packaging tests run one there); one runs by its name from any directory,
with no PYTHONPATH of the user's, and fails as its planted bug makes it;
a name none has is one line and exit 2. A run whose engine cannot start
still writes its index page, saying why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bridge.cli as cli
from bridge.wire import examples
from release import files

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "tests" / "bridge" / "engines"


def test_every_example_engine_is_known_by_its_name_and_shipped_under_it() -> None:
    programs = sorted(ENGINES.glob("*.py"))
    assert len(programs) > 10
    known = examples.known()
    for program in programs:
        assert known[program.stem.replace("_", "-")] == program
    assert len(known) == len(programs)
    shipped = files.runner()
    where = examples.FOLDERS[0].relative_to(examples.PACKAGES).as_posix()
    for program in programs:
        assert shipped[f"{where}/{program.name}"] == program
    # At the depth they have in the project: their paths to scenarios/profiles/ hold.
    assert len(Path(where).parts) == len(ENGINES.relative_to(ROOT).parts)


def test_an_example_engine_runs_by_its_name_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    argv = ["corpus", "--engine", "example:ahead-bug", "--only", "refused_utf8_0", "--jobs", "1"]
    assert cli.main([*argv, "--shrink-tries", "0"]) == 1
    out = capsys.readouterr().out
    assert "FAIL refused_utf8_0.jsonl" in out and "(SPEC 4)" in out, out
    assert "--engine example:ahead-bug for the states there" in out
    assert "No module named" not in out


def test_a_name_no_example_engine_has_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["corpus", "--engine", "example:ahead_bugs", "--only", "empty_chat"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1, said
    assert "example:ahead_bugs: no example engine of that name" in said.err
    assert "ahead-bug, " in said.err


def test_an_engine_that_cannot_start_still_gets_an_index_page_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["corpus", "--engine", str(tmp_path / "no-engine --bridge"), "--report", str(out)]
    assert cli.main([*argv, "--jobs", "1"]) == 2
    said = capsys.readouterr()
    assert "ENGINE FAULT (not a divergence)" in said.err
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "ENGINE FAULT (not a divergence): the engine failed at its start" in page
    assert '<span class="verdict fail">' in page
    assert "; ;" not in page  # no profile was declared: none is said
    assert "cannot be started: No such file or directory" in page
    assert page.count('class="FAULT">FAULT</td>') == 3


def test_every_example_engine_the_docs_name_is_there() -> None:
    named = set()
    for document in ("README.md", "docs/first-engine.md", "docs/ci.md"):
        named |= set(re.findall(r"example:([a-z][a-z-]+)", (ROOT / document).read_text()))
    assert {"ahead-bug", "partial", "planted"} <= named
    assert named <= set(examples.known())
