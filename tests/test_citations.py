"""Every "SPEC n" and "SPEC n.m" in the project's tracked .py and .md files
(lists such as "SPEC 3.3, 3.4 and 10" and ranges such as "SPEC 1-7"
included), and every "section n" inside SPEC.md itself, names a section
that SPEC.md has as a heading (`## 4. ...`, `### 4.1 ...`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = r"\d+(?:\.\d+)*"
ITEM = rf"{NUMBER}(?:\s*[-–]\s*{NUMBER})?"
ITEMS = rf"{ITEM}(?:(?:,\s*|\s+and\s+|\s+or\s+){ITEM})*"
CITATION = re.compile(rf"\bSPEC(?:\.md)?(?:'s)?(?:,?\s+sections?|\s+§)?\s+({ITEMS})")
INSIDE = re.compile(rf"\bsections?\s+({ITEMS})")
"""How SPEC.md cites itself."""


def headings(spec: str) -> set[str]:
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)*)\.? ", spec, re.M))


def cited(text: str, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """Each section number a text cites, with its line: both ends of a range."""
    out = []
    for match in pattern.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for item in re.split(r",\s*|\s+and\s+|\s+or\s+", match.group(1)):
            out += [(line, end) for end in re.split(r"\s*[-–]\s*", item)]
    return out


def test_the_citation_reader_finds_lists_ranges_and_missing_sections() -> None:
    text = "(SPEC 3.3, 3.4 and 10)\nSPEC 1-7; SPEC.md section 8.\nSPEC 3.6, and the 2 calls"
    assert cited(text, CITATION) == [
        (1, "3.3"),
        (1, "3.4"),
        (1, "10"),
        (2, "1"),
        (2, "7"),
        (2, "8"),
        (3, "3.6"),
    ]
    assert headings("## 3. The view\n### 3.1 Which pairs\n#### 9 not a section\n") == {"3", "3.1"}


def test_every_spec_citation_names_a_section_of_spec_md() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "*.py", "*.md"], cwd=ROOT, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    sections = headings(spec)
    assert {"1", "3.1", "4.1", "8", "10"} <= sections
    found = [(f"SPEC.md:{line}", n) for line, n in cited(spec, INSIDE)]
    for name in listed.stdout.split():
        text = (ROOT / name).read_text(encoding="utf-8")
        found += [(f"{name}:{line}", n) for line, n in cited(text, CITATION)]
    assert len(found) > 300
    missing = [f"{where}: SPEC {n}" for where, n in found if n not in sections]
    assert not missing, "citations of sections SPEC.md lacks:\n" + "\n".join(missing)
