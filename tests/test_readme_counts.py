"""Every count README.md states about the tree is the tree's (issue 37): the
laws, the corpus's scenarios, families and refusal rules, the corpus
version, the options of SPEC 10, the capabilities, the deliberate breaks,
the laws' profiles, the gate's stages, the shrinking budgets, the
benchmarks' rows it names; and the counts docs/developing.md, docs/ci.md and
scenarios/README.md state of today's tree. Each number is found in the text
by a pattern and compared with a count made from the files it counts (never
from a constant the text is made from); each pattern must still be found, so
rewording a sentence cannot silence its check."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

import bridge.cli
import laws.mutants
from bridge.checking import causes
from bridge.formats import capabilities, usage
from bridge.runs import corpus
from laws.registry import PROFILES
from model.profile import Profile
from scenarios import shard
from tests import gate

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "scenarios" / "corpus"


WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number(text: str) -> int:
    """A count as the text writes it: digits (1,000 with its comma) or a word."""
    return WORDS.index(text) if text in WORDS else int(text.replace(",", ""))


@cache
def text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


@cache
def headers() -> tuple[dict, ...]:
    """Each corpus scenario's header line."""
    out = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            out.append(json.loads(lines.readline()))
    return tuple(out)


CHATS = ("steady", "deep", "late", "random", "flat")
"""The families that replay chats (scenarios/README.md, "The corpus")."""


def families() -> Counter[str]:
    return Counter(header["notes"]["family"] for header in headers())


def refusal_rules() -> Counter[str]:
    """The refusal family's scenarios per rule."""
    return Counter(
        header["notes"]["rule"] for header in headers() if header["notes"]["family"] == "refused"
    )


def spec_section(heading: str, upto: str) -> str:
    spec = text("SPEC.md")
    start = spec.index(heading)
    return spec[start : spec.index(upto, start + len(heading))]


def spec_refusal_rules() -> set[str]:
    """The rules SPEC 4.1's table names (what its parentheses say aside)."""
    rules: set[str] = set()
    for row in re.findall(r"^\| \w+ \| (.*) \|$", spec_section("### 4.1 ", "\n## "), re.M):
        rules |= set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", row)))
    return rules


def spec_options() -> list[str]:
    """The options SPEC 10's table defines, a row each."""
    return re.findall(r"^\| `(\w+)` \|", spec_section("## 10. ", "\n## "), re.M)


def breaks() -> list[tuple[str, str]]:
    """(name, gate) of every deliberate break laws/mutants.py writes."""
    tree = ast.parse(text("laws/mutants.py"))
    return [
        (call.args[0].value, call.args[3].value)
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "Break"
        and isinstance(call.args[0], ast.Constant)
    ]


def gates() -> Counter[str]:
    return Counter(gate_ for _, gate_ in breaks())


def law_count() -> int:
    return len(json.loads(text("laws/LAWS.lock")))


def corpus_version() -> int:
    return json.loads(text("scenarios/expected/CORPUS.json"))["version"]


def shrink_tries(*argv: str) -> int:
    return bridge.cli.parser().parse_args([*argv, "--engine", "x"]).shrink_tries


def benchmark_rows() -> set[int]:
    return {int(n) for n in re.findall(r"^\| (\d+) \|", text("BENCHMARKS.md"), re.M)}


def stage_option(name: str, option: str) -> int:
    """The number a gate stage's command gives an option."""
    (stage,) = [stage for stage in gate.STAGES if stage.name == name]
    return int(stage.command[stage.command.index(option) + 1])


Check = tuple[str, str, Callable[[], tuple[int, ...]]]
"""A document, a pattern whose groups are numbers, and the tree's numbers."""

CHECKS: list[Check] = [
    ("README.md", r"ALL (\d+) LAWS HOLD", lambda: (law_count(),)),
    ("README.md", r"(\d+) LAWS HOLD, 1 INCONCLUSIVE", lambda: (law_count() - 1,)),
    ("README.md", r"ALL ([\d,]+) SCENARIOS AGREE", lambda: (len(headers()),)),
    ("README.md", r"\[\d+/([\d,]+)\] FAIL", lambda: (len(headers()),)),
    ("README.md", r"([\d,]+) scenarios: \d+ ok, \d+ FAIL", lambda: (len(headers()),)),
    (
        "README.md",
        r"holds ([\d,]+) seeded scenarios in (\d+) families",
        lambda: (len(headers()), len(families())),
    ),
    (
        "README.md",
        r"three for each of (\d+)\s+of the (\d+) rules of SPEC 4\.1",
        lambda: (len(refusal_rules()), len(spec_refusal_rules())),
    ),
    ("README.md", r"one for each of (\d+) pairs", lambda: (families()["both"],)),
    ("README.md", r"(?i)corpus\s+version\s+(?:is\s+)?(\d+)", lambda: (corpus_version(),)),
    ("README.md", r"one of the (\d+) options of\s+SPEC 10", lambda: (len(spec_options()),)),
    (
        "README.md",
        r"each of the (\d+) profile options made inert",
        lambda: (sum(name.endswith(" inert") for name, _ in breaks()),),
    ),
    (
        "README.md",
        r"one of the (\d+)\s+capabilities",
        lambda: (len(capabilities.CAPABILITIES),),
    ),
    (
        "README.md",
        r"Each of the (\d+) deliberate breaks \((\d+) of SPEC 9: (\d+) in the model:"
        r"[^;]*(?:;[^;]*)*?; (\d+) in\s+the engine; and (\d+) in the runner",
        lambda: (
            len(breaks()),
            gates()["laws"] + gates()["bridge"],
            gates()["laws"],
            gates()["bridge"],
            gates()["runner"],
        ),
    ),
    (
        "README.md",
        r"(\d+) histories of up to (\d+)\s+events in the CI profile, ([\d,]+) of up to (\d+)"
        r" in `make laws-deep`",
        lambda: (
            PROFILES["ci"].histories,
            PROFILES["ci"].steps,
            PROFILES["deep"].histories,
            PROFILES["deep"].steps,
        ),
    ),
    ("README.md", r"computed for every t <= ([\d,]+)", lambda: (PROFILES["ci"].push_t,)),
    ("README.md", r"the plain loop over t = 0\.\.([\d,]+)", lambda: (PROFILES["ci"].push_t,)),
    ("README.md", r"over (\d+) symbolic counter digits", lambda: (PROFILES["ci"].push_k,)),
    ("README.md", r"`--shrink-tries`, default (\d+) replays", lambda: (shrink_tries("corpus"),)),
    (
        "README.md",
        r"`compare`, `fuzz` and `diagnose --shrink-tries`, default ([\d,]+)",
        lambda: (shrink_tries("compare", "f"),),
    ),
    ("README.md", r"on the first (\d+) scenarios stops the run", lambda: (corpus.SAME_FAULTS,)),
    ("README.md", r"names not run are named,\s+the first (\d+)", lambda: (usage.NOT_RUN_SHOWN,)),
    ("README.md", r"at most (\d+) shrunk per kind", lambda: (causes.REPRESENTATIVES,)),
    ("README.md", r"\(N at most ([\d,]+)\)", lambda: (shard.MAX_SHARDS,)),
    (
        "docs/developing.md",
        r"uses no CPU for (\d+) s is hung",
        lambda: (int(gate.STALL),),
    ),
    (
        "docs/developing.md",
        r"a gate\s+that uses no CPU at all for (\d+) s is hung",
        lambda: (int(laws.mutants.STALL),),
    ),
    (
        "README.md",
        r"(\d+) generated histories against the engine",
        lambda: (stage_option("fuzz", "--histories"),),
    ),
    (
        "docs/developing.md",
        r"\| fuzz \| (\d+) generated histories",
        lambda: (stage_option("fuzz", "--histories"),),
    ),
    (
        "README.md",
        r"the engine also\s+under (\w+) kept profiles",
        lambda: (sum("--profile" in stage.command for stage in gate.STAGES),),
    ),
    (
        "docs/developing.md",
        r"Today the gate checks the (\d+) laws of SPEC 8, replays the ([\d,]+) scenarios of\s+"
        r"the corpus, and runs the (\d+) deliberate breaks",
        lambda: (law_count(), len(headers()), len(breaks())),
    ),
    (
        "docs/developing.md",
        r"every law of SPEC 8 \(\d+ in these runs; (\d+) today\)",
        lambda: (law_count(),),
    ),
    (
        "docs/developing.md",
        r"the deliberate breaks \(\d+ in these runs; (\d+) today",
        lambda: (len(breaks()),),
    ),
    ("docs/developing.md", r"whole corpus \(([\d,]+) scenarios\)", lambda: (len(headers()),)),
    ("docs/developing.md", r"`python -m tests\.gate`: (\d+) stages", lambda: (len(gate.STAGES),)),
    (
        "docs/developing.md",
        r"ends with its (\d+)\s+slowest tests",
        lambda: (stage_option("unit", "--durations"),),
    ),
    (
        "scenarios/README.md",
        r"`corpus/` holds ([\d,]+) scenarios\. The (\d+) of the first five families"
        r"[^.]*(?:\.[^.]*)*?The (\d+) of the conformance\s+families",
        lambda: (
            len(headers()),
            sum(families()[f] for f in CHATS),
            len(headers()) - sum(families()[f] for f in CHATS),
        ),
    ),
    ("docs/ci.md", r"ALL ([\d,]+) SCENARIOS AGREE", lambda: (len(headers()),)),
    ("docs/ci.md", r"\(corpus version (\d+)\)", lambda: (corpus_version(),)),
]


def stated(document: str, pattern: str) -> list[tuple[int, ...]]:
    return [
        tuple(number(group) for group in match.groups())
        for match in re.finditer(pattern, text(document))
    ]


@pytest.mark.parametrize(
    ("document", "pattern", "tree"), CHECKS, ids=[f"{d}:{p[:32]}" for d, p, _ in CHECKS]
)
def test_each_count_the_docs_state_is_the_tree_s(
    document: str, pattern: str, tree: Callable[[], tuple[int, ...]]
) -> None:
    found = stated(document, pattern)
    assert found, f"{document} no longer says /{pattern}/: reword the check with the text"
    assert set(found) == {tree()}, f"{document}: /{pattern}/ says {found}, the tree {tree()}"


def test_the_tree_s_counts_are_counted_two_ways() -> None:
    """Where the tree holds a count twice, both agree: SPEC 10's table and
    the model's profile; the refusal family's three scenarios per rule and
    the rules SPEC 4.1 has; the gate's stages and the table of them in
    docs/developing.md; the laws LAWS.lock freezes and the laws' files."""
    assert spec_options() == list(Profile.__dataclass_fields__)
    assert set(refusal_rules().values()) == {3}
    assert set(refusal_rules()) | {"self_starts"} == spec_refusal_rules()
    assert re.search(r"all but `self_starts`", text("README.md"))
    for total, ok, failed in stated("README.md", r"([\d,]+) scenarios: (\d+) ok, (\d+) FAIL"):
        assert ok + failed == total
    rows = re.findall(r"^\| ([\w-]+) \| ", text("docs/developing.md"), re.M)
    assert {stage.name for stage in gate.STAGES} <= set(rows)
    files = {path.stem for path in (ROOT / "laws").glob("*/*.py")} - {"__init__"}
    assert set(json.loads(text("laws/LAWS.lock"))) <= files


def test_each_benchmark_row_readme_names_is_there() -> None:
    named = {
        int(n) for n in re.findall(r"(?:BENCHMARKS|`make bench`) row (\d+)", text("README.md"))
    }
    assert named
    assert named <= benchmark_rows()


def test_the_first_screen_is_the_engine_author_s() -> None:
    """README's first 40 lines hold the engine author's three commands
    (take the runner, run the engine over the corpus, read the verdict, the
    causes and the pages), before anything of the maintainers'; the two
    fresh-machine commands are still stated, further down."""
    readme = text("README.md")
    screen = " ".join(" ".join(readme.splitlines()[:40]).split())
    for said in ("make dist", "pip install", "optchat-spec.pyz corpus --engine", "--report out"):
        assert said in screen, said
    for said in ("SCENARIOS AGREE", "FAIL from", "index.html", "NOTHING COMPARED"):
        assert said in screen, said
    assert "make laws" not in screen and "make test" not in screen
    assert re.search(r"^make laws +#", readme, re.M) and re.search(r"^make test +#", readme, re.M)
