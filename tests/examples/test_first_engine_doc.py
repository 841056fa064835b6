"""docs/first-engine.md's order: each step a command the runner takes,
whose `--only` globs each name scenarios of the corpus, each step adding
scenarios the earlier ones left out, the last the whole corpus; the page is
linked from README, PROTOCOL.md and docs/ci.md."""

from __future__ import annotations

import fnmatch
import shlex
from pathlib import Path

import bridge.cli as cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "first-engine.md"
CORPUS = sorted(p.stem for p in (ROOT / "scenarios" / "corpus").glob("*.jsonl"))


def steps() -> list[list[str]]:
    """The `optchat-spec corpus` command of each step, in order, split."""
    prefix = 'optchat-spec corpus --engine "$ENGINE"'
    return [shlex.split(line) for line in DOC.read_text().splitlines() if line.startswith(prefix)]


def test_each_step_adds_scenarios_and_the_last_is_the_whole_corpus() -> None:
    found = steps()
    assert len(found) == 9
    seen: set[str] = set()
    for command in found:
        args = cli.parser().parse_args(command[1:])
        assert args.command == "corpus" and args.engine == "$ENGINE"
        for glob in args.only:
            assert [n for n in CORPUS if fnmatch.fnmatch(n, glob)], f"{glob} names no scenario"
        chosen = {
            n for n in CORPUS if not args.only or any(fnmatch.fnmatch(n, g) for g in args.only)
        }
        assert chosen - seen or chosen == set(CORPUS), f"{command} adds nothing"
        seen |= chosen
    assert found[0][-2:] == ["--only", "empty_chat"]
    assert "--only" not in found[-1] and seen == set(CORPUS)


def test_the_page_is_linked_where_an_author_starts() -> None:
    for page, link in (
        ("README.md", "docs/first-engine.md"),
        ("bridge/PROTOCOL.md", "../docs/first-engine.md"),
        ("docs/ci.md", "first-engine.md"),
    ):
        assert f"]({link})" in (ROOT / page).read_text(), page
