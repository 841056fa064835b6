"""What an engine says (its `unsupported` reason, its stderr), the names of
a --known-failures file and a scenario file's name reach the terminal
escaped (issue 36, item 8; bridge/formats/terminal.py): no escape code, NUL,
other control character, bidirectional override or lone surrogate is
printed as it is, and what it was can still be read."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bridge.formats.terminal import shown
from scenarios import format as scenario_format
from tests.bridge.helpers import random_scenario
from tests.hostile.processes import Hostile, Run, engine
from tests.hostile.test_engines import scenario_file

HOSTILE = "\x1b[31mred\x1b]0;title\x07\x00nul\x9b2J\u202egnp.exe\u2066\r\x7f\ud800"
"""Colour, a window title, NUL, C1's CSI, right-to-left override and
isolate, a carriage return, DEL, and a lone surrogate (JSON can carry one)."""

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What a terminal must never be given from untrusted text: every control
character but newline and tab, the bidirectional controls, lone surrogates."""


def clean(result: Run) -> None:
    found = RAW.findall(result.out + result.err)
    assert not found, f"printed raw: {found!r}"
    assert "Traceback" not in result.out + result.err


@pytest.fixture
def hostile_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTILE_TEXT", json.dumps(HOSTILE))


@pytest.mark.usefixtures("hostile_text")
@pytest.mark.parametrize(
    ("how", "said"),
    [("unsupported", "SKIPPED"), ("noisy", "ENGINE FAULT")],
    ids=["its unsupported reason", "its stderr"],
)
def test_what_an_engine_says_is_shown_escaped(run: Hostile, how: str, said: str) -> None:
    result = run.main("compare", scenario_file(run.folder), "--engine", engine(how))
    assert "Traceback" not in result.out + result.err
    clean(result)
    assert said in result.out + result.err
    assert shown("\x1b[31mred") in result.out + result.err
    assert shown("\x00nul\x9b2J\u202egnp.exe") in result.out + result.err


@pytest.mark.usefixtures("hostile_text")
def test_a_corpus_run_shows_reasons_and_known_failure_names_escaped(run: Hostile) -> None:
    scenario_file(run.folder, "a.jsonl")
    known = run.folder / "known.txt"
    name = HOSTILE.replace("\r", "").replace("\ud800", "")  # one word of UTF-8
    known.write_text(f"a.jsonl skip\n{name}\n", encoding="utf-8")
    result = run.main(
        "corpus", str(run.folder / "scenarios"), "--engine", engine("unsupported"), "--jobs", "1",
        "--known-failures", str(known),
    )  # fmt: skip
    assert result.code == 1, "every scenario SKIPPED: nothing compared"
    assert result.out.splitlines()[-1].startswith("NOTHING COMPARED: "), result.out
    clean(result)
    assert f"note: {shown(name)} is listed as a known failure but was not run" in result.out


def test_a_scenario_file_name_is_shown_escaped(run: Hostile) -> None:
    name = "\x1b[2Jx\x07.jsonl"
    path = run.folder / "scenarios" / name
    scenario_format.write(replace(random_scenario(6, 4), events=[]), path)
    result = run.main("compare", str(path), "--engine", "impl")
    assert result.code == 0, (result.out, result.err)
    clean(result)
    assert shown(name) in result.out


def test_shown_escapes_what_a_terminal_acts_on_and_keeps_the_rest() -> None:
    """Each escaped character as a JSON escape (what `replay` prints stays
    JSON); text, newlines, tabs, emoji and their joiners kept."""
    assert shown("a\tb\nc é 😀\u200d😀") == "a\tb\nc é 😀\u200d😀"
    assert shown("\x1b[31m\x00\x9b\u202e\ud800") == "\\u001b[31m\\u0000\\u009b\\u202e\\ud800"
    assert json.loads(f'"{shown(HOSTILE)}"') == HOSTILE
    assert not RAW.search(shown(HOSTILE))
    assert not RAW.search(shown("".join(map(chr, range(0x110000)))))


def test_replay_prints_json_lines_a_terminal_can_take(run: Hostile, tmp_path: Path) -> None:
    """Answers quoting a text of the scenario: still JSON, the same text."""
    path = tmp_path / "s.jsonl"
    events = [{"event": "message", "kind": "user", "text": "hi \x9b\u202e\x7f"}]
    scenario_format.write(replace(random_scenario(6, 4), events=events), path)
    result = run.main("replay", str(path), "--engine", "model")
    assert result.code == 0, result.err
    clean(result)
    answers = [json.loads(line) for line in result.out.splitlines()]
    assert "hi \x9b\u202e\x7f" in answers[-1]["render"]
