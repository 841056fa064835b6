"""README's first screen ("A verdict in the first minute") run as written:
each command of its first shell block, in an empty directory, with the
zipapp `make dist` makes there (built once for the session), and the
verdicts README shows beside them are the last lines those runs print.

It replays the whole corpus twice (green and red, the red one shrinking
its cause) and diagnoses two scenarios: some 35 CPU s, so `make test-more`
(docs/developing.md, "Two tiers"). The gate checks the same commands'
parts: the zipapp (tests/packaging/test_zipapp.py), the examples
(tests/bridge/test_examples.py), diagnose's rules (tests/bridge/test_diagnose_rules.py)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from release import zipapp
from tests.packaging.kits import PYTHON, ROOT

pytestmark = [pytest.mark.more, pytest.mark.xdist_group("zipapp")]

RUNNER = "python3 dist/optchat-spec.pyz"


def screen() -> tuple[list[str], list[str], str]:
    """The first screen: its shell block's commands (comments dropped), the
    verdict lines shown after it, and the prose between and after them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.split("\n## ", 2)[1]
    blocks = re.findall(r"```(\w*)\n(.*?)```", first, re.S)
    (commands,) = [body for kind, body in blocks if kind == "sh"]
    (verdicts,) = [body for kind, body in blocks if kind == ""]
    lines = [line.split(" #")[0].strip() for line in commands.splitlines()]
    return (
        [line for line in lines if line and not line.startswith("#")],
        verdicts.splitlines(),
        first,
    )


def run(line: str, where: Path, pyz: Path) -> subprocess.CompletedProcess[str]:
    """One command of the screen, as written, the runner being the zipapp."""
    assert line.startswith(RUNNER + " "), line
    argv = [str(PYTHON), str(pyz), *shlex.split(line[len(RUNNER) :])]
    return subprocess.run(
        argv,
        cwd=where,
        env={"PATH": "/usr/bin:/bin", "HOME": str(where / "home")},
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_first_screen_runs_as_written_and_prints_what_it_shows(tmp_path: Path) -> None:
    commands, verdicts, prose = screen()
    assert commands[0] == "make dist", commands
    assert commands[1:] == [c for c in commands[1:] if not c.startswith("make ")]
    (tmp_path / "dist").mkdir()
    pyz = zipapp.build(tmp_path / "dist")
    assert pyz == tmp_path / "dist" / "optchat-spec.pyz"
    said: dict[str, subprocess.CompletedProcess[str]] = {}
    for line in commands[1:]:
        if line.startswith("xdg-open "):
            assert (tmp_path / line.split()[1]).is_file(), line  # the page the red run wrote
            continue
        said[line] = done = run(line, tmp_path, pyz)
        last = done.stdout.splitlines()[-1] if done.stdout else ""
        command, engine = shlex.split(line)[2], re.findall(r"--engine (\S+|'[^']*')", line)
        if (command, engine) == ("corpus", ["reference"]):
            assert done.returncode == 0, done.stdout + done.stderr
            assert last == verdicts[0], last
        elif (command, engine) == ("corpus", ["example:ahead-bug"]):
            assert done.returncode == 1, done.stdout + done.stderr
            assert last == verdicts[1], last
        elif command == "diagnose":
            # The planted bug is a bug, and no difference is proposed for it
            # (the screen asks diagnose to tell them apart).
            assert done.returncode == 1, done.stdout + done.stderr
            assert "no change of the profile or capabilities is needed" in done.stdout
            assert re.search(r'"profile": \{\}', done.stdout), done.stdout
            assert last.startswith("1 LIKELY BUG, in "), last
            assert last.split(";")[0] in " ".join(prose.split()), last
        else:
            # Yours: an engine that cannot start is a fault, and still gets its page.
            assert "my-engine" in line, line
            assert done.returncode == 2, done.stdout + done.stderr
            assert (tmp_path / "out" / "index.html").is_file()
    assert len(said) == len(commands) - 2, said.keys()  # make dist and xdg-open aside
