"""Constants an engine accepts (bridge/PROTOCOL.md, "Constants an engine
accepts"; issue 35): declared in the answer to the header or given as
`--constants FILE`, a scenario outside them is SKIPPED with the limit it
breaks before any of its events is sent, the run says once how many; fuzz
draws only constants within them; and the corpus's refusal and `both`
families lie within what common engines accept (CEILING >= 8 x NODE, FLOOR
>= 4 x NODE), so such an engine skips none of them."""

from __future__ import annotations

import json
import math
import shlex
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bridge
import bridge.cli as cli
from bridge.checking.shrink import diverges_as
from bridge.checking.verdict import Outside, within
from bridge.formats import limits
from bridge.formats.kit import CORPUS
from bridge.formats.profile import SPEC
from bridge.runs.corpus import Options, check
from bridge.runs.fuzz_draws import accepted_constants, fitted
from bridge.wire.engine import InProcess, Ready
from model.constants import Constants
from scenarios import generate
from scenarios.format import CONSTANTS, Scenario
from scenarios.strategies import constants_dict
from tests.scenarios.schemas import ANSWER, schema, validator

LIMITED = Path(__file__).parent / "engines" / "limited.py"
ENGINE = f"{shlex.quote(sys.executable)} {shlex.quote(str(LIMITED))}"
DECLARING = f"{ENGINE} --declare"

ELEPHANT = {
    "ceiling": {"min": {"times": 8, "of": "node"}},
    "floor": {"min": {"times": 4, "of": "node"}},
}
"""The limits of a real JavaScript engine, as tests/bridge/engines/limited.py declares them."""
SAID = "CEILING >= 8 x NODE, FLOOR >= 4 x NODE"

OUTSIDE = ["deep_4000_2000", "random_07"]
INSIDE = ["both_kind_utf8", "refused_kind_0", "empty_chat"]
"""Corpus scenarios outside those limits and within them, checked by hand below."""


def constants_of(path: Path) -> dict[str, Any]:
    """A scenario's constants, read from its first line without the bridge."""
    with path.open(encoding="utf-8") as file:
        return dict(json.loads(file.readline())["constants"])


def headers() -> dict[str, dict[str, Any]]:
    """Every corpus scenario's constants, by name."""
    return {p.stem: constants_of(p) for p in sorted(CORPUS.glob("*.jsonl"))}


def refused_by_elephant(c: dict[str, Any]) -> bool:
    """What the JavaScript engine refuses, in its own terms (not the bridge's)."""
    return bool(c["ceiling"] < 8 * c["node"] or c["floor"] < 4 * c["node"])


def test_the_examples_lie_where_this_file_says() -> None:
    constants = headers()
    assert all(refused_by_elephant(constants[n]) for n in OUTSIDE)
    assert not any(refused_by_elephant(constants[n]) for n in INSIDE)


def test_the_refusal_and_both_families_lie_within_what_common_engines_accept() -> None:
    """Issue 35: 8 of the 19 `both_*` scenarios (and 16 refusal ones) lay
    outside before corpus version 8; what lies outside now is what budgets
    are the point of."""
    constants = headers()
    outside = sorted(n for n, c in constants.items() if refused_by_elephant(c))
    assert not [n for n in outside if n.startswith(("both_", "refused_"))]
    assert len([n for n in constants if n.startswith("both_")]) == len(generate.PAIRS)
    assert outside == ["deep_4000_2000", "random_07", "random_23"]
    assert generate.ACCEPTED == (8, 4)
    declared = limits.parse(ELEPHANT, "test")
    assert sorted(n for n, c in constants.items() if declared.broken(c)) == outside


def test_a_declaration_is_read_said_and_checked() -> None:
    declared = limits.parse(
        {
            "tries": {"in": [3]},
            "node": {"in": [512, 256], "min": 16},
            "ceiling": {"min": {"times": 8, "of": "node"}, "max": 1e6},
            "retry": {"max": 2.5},
        },
        "x",
    )
    # In the header's order, whatever the object's.
    assert str(declared) == (
        "NODE in {256, 512}, NODE >= 16, CEILING >= 8 x NODE, CEILING <= 1e+06, "
        "TRIES = 3, RETRY <= 2.5"
    )
    spec = constants_dict(Constants(tries=3, retry=2))
    assert declared.broken(spec) is None
    assert declared.broken({**spec, "node": 64}) == "NODE is 64, not 256 or 512"
    assert declared.broken({**spec, "ceiling": 4095}) == "CEILING 4095 < 8 x NODE = 4096"
    assert declared.broken({**spec, "ceiling": 4096}) is None
    assert declared.broken({**spec, "tries": 5}) == "TRIES is 5, not 3"
    assert declared.broken({**spec, "retry": 2.6}) == "RETRY 2.6 > 2.5"
    assert str(limits.parse({}, "x")) == "none"


BAD = [
    ([], "the constants accepted are an object"),
    ({"nodes": {"min": 1}}, "no constant 'nodes'"),
    ({"node": 512}, 'a limit is an object of "min", "max" and "in"'),
    ({"node": {}}, 'a limit is an object of "min", "max" and "in"'),
    ({"node": {"least": 1}}, 'a limit is an object of "min", "max" and "in"'),
    ({"node": {"in": []}}, '"in" is a list of numbers'),
    ({"node": {"in": [True]}}, '"in" is a list of numbers'),
    ({"ceiling": {"min": "8 x node"}}, "a bound is a number or"),
    ({"ceiling": {"min": {"times": 8, "of": "nod"}}}, "a bound is a number or"),
    ({"ceiling": {"min": {"times": 8}}}, "a bound is a number or"),
]
"""Declarations that are not one, each with what the error says."""


@pytest.mark.parametrize(("given", "problem"), BAD)
def test_a_bad_declaration_is_named(given: Any, problem: str) -> None:
    with pytest.raises(limits.LimitsError, match="^where: ") as raised:
        limits.parse(given, "where")
    assert problem in str(raised.value)


def test_the_answer_schema_takes_a_declaration_as_the_bridge_does() -> None:
    """bridge/answer.schema.json and bridge/formats/limits.py agree, on the
    example of bridge/PROTOCOL.md and on every bad declaration above, in a
    ready answer and in a not-ready one."""
    text = (Path(bridge.__file__).parent / "PROTOCOL.md").read_text("utf-8")
    example = json.loads(text.split("```json\n")[-1].split("```")[0])
    assert example["engine"] == "mine.js 0.9"
    limits.parse(example["constants"], "PROTOCOL.md")
    answer = validator(ANSWER, "answer_to_header")
    not_ready = {"ready": False, "unsupported": {"ceiling": "too small"}}
    for wrapper in (example, not_ready):
        assert answer.is_valid({**wrapper, "constants": example["constants"]})
        for bad, _ in BAD:
            assert not answer.is_valid({**wrapper, "constants": bad}), bad
    assert schema(ANSWER)["$defs"]["constant"]["enum"] == list(CONSTANTS)


@settings(max_examples=200, database=None, derandomize=True)
@given(
    st.integers(1, 5000),
    st.integers(1, 1600),
    st.integers(0, 80000),
    st.sampled_from(["min", "max"]),
)
def test_a_fitted_constant_lies_within_a_fractional_multiple_of_node(
    node: int, hundredths: int, was: int, bound: str
) -> None:
    """CEILING fitted to `min (or max) T x NODE` for T any hundredth (most
    inexact in binary) is the whole number nearest to where it was that lies
    within, reckoned in decimal here, and the limits read it as within:
    1.16 x NODE 25 is 29, which floating point puts past 28.999999999999996."""
    declared = limits.parse({"ceiling": {bound: {"times": hundredths / 100, "of": "node"}}}, "t")
    constants = {"node": node, "ceiling": was}
    ceiling = declared.fit(constants)["ceiling"]
    exact = Fraction(hundredths, 100) * node
    nearest = max(was, math.ceil(exact)) if bound == "min" else min(was, math.floor(exact))
    assert ceiling == nearest and isinstance(ceiling, int)
    assert declared.broken({**constants, "ceiling": ceiling}) is None


def test_fitting_to_a_fractional_multiple_as_worked_by_hand() -> None:
    """`min 1.5 x NODE` at NODE 7 is 10.5: CEILING 10 is moved up to 11; `max
    1.16 x NODE` at NODE 25 is 29 exactly, kept, and 30 is said to break it."""
    low = limits.parse({"ceiling": {"min": {"times": 1.5, "of": "node"}}}, "t")
    assert low.fit({"node": 7, "ceiling": 10})["ceiling"] == 11
    assert low.broken({"node": 7, "ceiling": 10}) == "CEILING 10 < 1.5 x NODE = 10.5"
    high = limits.parse({"ceiling": {"max": {"times": 1.16, "of": "node"}}}, "t")
    assert high.broken({"node": 25, "ceiling": 29}) is None
    assert high.fit({"node": 25, "ceiling": 40})["ceiling"] == 29
    assert high.broken({"node": 25, "ceiling": 30}) == "CEILING 30 > 1.16 x NODE = 29"


def test_fuzz_draws_only_constants_the_engine_accepts() -> None:
    declared = limits.parse({**ELEPHANT, "node": {"in": [32]}, "tries": {"max": 2}}, "test")
    seen: list[Constants] = []

    @settings(max_examples=150, database=None, derandomize=True)
    @given(accepted_constants(declared))
    def drawn(constants: Constants) -> None:
        seen.append(constants)
        assert declared.broken(constants_dict(constants)) is None

    drawn()
    # Moved, not only kept: the strategy alone draws NODE 16 and 64 too.
    assert {c.node for c in seen} == {32} and {c.tries for c in seen} == {1, 2}
    assert min(c.ceiling for c in seen) == 8 * 32
    # What no move brings within (FLOOR under 4 x NODE past a CEILING that is not limited).
    floor_only = limits.parse({"floor": {"min": {"times": 4, "of": "node"}}}, "test")
    low = Constants(node=64, ceiling=200, floor=100, cceiling=100, cfloor=50)
    assert fitted(low, floor_only) is None


def test_fuzz_sends_an_engine_only_constants_it_declares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Drawn as they are, 25 of these 30 histories lie outside (skipped); the
    engine ends with an error at an event sent after a header it refused."""
    args = ["--engine", DECLARING, "--seed", "1", "--histories", "30"]
    code = cli.main(["fuzz", *args, "--regressions", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"(profile: SPEC; constants accepted: {SAID})" in out
    assert "throughput: 30 histories, " in out and "skipped" not in out


@pytest.mark.parametrize("command", ["compare", "diagnose"])
def test_compare_and_diagnose_skip_what_lies_outside(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine ends with an error at an event sent after a header it
    refused: a FAULT, were the scenario not skipped. The run's one scenario
    is SKIPPED, so it compared nothing: exit 1, NOTHING COMPARED on its last
    line (issue 33's contract for every command), never green and never
    the 2 of a fault."""
    # One job for diagnose: in this process, no pool of workers started.
    given = ["random_07"] if command == "compare" else ["--only=random_07", "--jobs", "1"]
    code = cli.main([command, *given, "--engine", DECLARING, "--regressions", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.splitlines()[-1].startswith("NOTHING COMPARED: 0 of "), out
    assert "random_07.jsonl: its constants lie outside those the engine accepts: " in out
    # Nothing outside the limits was sent: the engine would have ended with an error.
    assert "FAULT" not in out


def scenario_of(name: str) -> Scenario:
    return Scenario(constants_of(CORPUS / f"{name}.jsonl"), [])


class Unstartable(InProcess):
    """An engine a shrink must not start."""

    name = "unstartable"

    def start(self, scenario: Scenario) -> Ready:
        raise AssertionError("started on a scenario outside the constants it accepts")

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("sent a line")


def test_shrinking_tries_no_constants_outside_those_accepted() -> None:
    """`compare` and `diagnose` shrink with `diverges_as`: a candidate outside
    is no divergence, and the engine is not started on it."""
    declared = limits.parse(ELEPHANT, "test")
    still = diverges_as(Unstartable(), SPEC, ("size", "5"), accepted=declared)
    assert still(scenario_of("random_07")) is False
    with pytest.raises(AssertionError, match="started on a scenario"):
        still(scenario_of("both_kind_utf8"))


def test_a_scenario_outside_given_constants_never_starts_the_engine() -> None:
    """`--constants`: the engine is not started (a command that cannot start
    would be a FAULT)."""
    declared = limits.parse(ELEPHANT, "test")
    verdict = check(
        CORPUS / "random_07.jsonl",
        Options("/no/such/engine", quiet=True, constants=declared),
    )
    assert verdict.status == "SKIPPED", verdict.reason
    assert verdict.reason == (
        "its constants lie outside those the engine accepts: CEILING 1649 < 8 x NODE = 4096"
    )
    assert verdict.outside == SAID
    with pytest.raises(Outside):
        within(scenario_of("random_07"), declared)
    within(scenario_of("both_kind_utf8"), declared)


def test_over_the_whole_corpus_only_what_lies_outside_is_kept_from_the_engine() -> None:
    """Every corpus scenario under `--constants` with an engine that cannot
    start: the ones outside are SKIPPED, every other one reaches the engine
    (a FAULT at its start)."""
    declared = limits.parse(ELEPHANT, "test")
    options = Options("/no/such/engine", quiet=True, constants=declared)
    statuses = {p.stem: check(p, options).status for p in sorted(CORPUS.glob("*.jsonl"))}
    skipped = sorted(n for n, status in statuses.items() if status == "SKIPPED")
    assert skipped == sorted(n for n, c in headers().items() if refused_by_elephant(c))
    assert set(statuses.values()) == {"SKIPPED", "FAULT"}
    assert not [n for n in skipped if n.startswith("both_")]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["corpus", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def only(names: list[str]) -> list[str]:
    return [word for name in names for word in ("--only", name)]


@pytest.mark.parametrize("how", ["declared", "--constants", "declared and --constants"])
def test_the_corpus_skips_what_lies_outside_the_limits_and_runs_the_rest(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine refuses an event sent after a header outside its limits
    (it ends with an error: a FAULT), so every SKIPPED below was skipped
    before any event was sent."""
    given = tmp_path / "constants.json"
    given.write_text(json.dumps(ELEPHANT), "utf-8")
    engine = ENGINE if how == "--constants" else DECLARING
    more = [] if how == "declared" else ["--constants", str(given)]
    code, out = run(["--engine", engine, *more, *only(OUTSIDE + INSIDE)], capsys)
    assert code == 0, out
    for name in OUTSIDE:
        assert f" SKIPPED {name}.jsonl " in out
    for name in INSIDE:
        assert f" ok   {name}.jsonl " in out
    assert "CEILING 2000 < 8 x NODE = 4096" in out  # deep_4000_2000's reason
    assert f"declared constants limits: {SAID}: 2 scenarios skipped" in out
    assert "5 scenarios: 3 ok, 2 SKIPPED" in out


def test_an_engine_refusing_without_declaring_is_skipped_for_its_own_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(["--engine", ENGINE, *only(["random_07", "empty_chat"])], capsys)
    # random_07 skipped: no event was compared (the empty chat has none), so not green.
    assert code == 1 and out.splitlines()[-1].startswith("NOTHING COMPARED: 0 of ")
    assert (
        "the engine cannot take it (ceiling: CEILING 1649 is under 8 x NODE (4096); "
        "floor: FLOOR 1538 is under 4 x NODE (2048))"
    ) in out
    assert "declared constants limits" not in out


def test_a_declaration_other_than_the_given_one_is_a_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "constants.json"
    given.write_text(json.dumps({"node": {"min": 4}}), "utf-8")
    code, out = run(
        ["--engine", DECLARING, "--constants", str(given), "--only", "empty_chat"], capsys
    )
    assert code == 2
    assert f"declares other constants than --constants gives: {SAID} / NODE >= 4" in out


def test_a_bad_declaration_is_an_engine_fault(capsys: pytest.CaptureFixture[str]) -> None:
    bad = shlex.quote(json.dumps({"ceiling": {"min": {"times": 8, "of": "NODE"}}}))
    code, out = run(["--engine", f"{DECLARING} {bad}", "--only", "empty_chat"], capsys)
    assert code == 2
    assert "FAULT" in out and "the constants it declared: ceiling: a bound is a number or" in out


def test_a_bad_constants_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "constants.json"
    given.write_text('{"node": {"in": 512}}', "utf-8")
    code, out = run(["--engine", "model", "--constants", str(given)], capsys)
    assert code == 2
    assert (
        out.strip()
        .splitlines()[-1]
        .endswith(f'--constants {given}: {given}: node: "in" is a list of numbers, not 512')
    )
