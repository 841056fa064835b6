"""A prover or solver out of its budget is INCONCLUSIVE, never a broken law,
and a slow machine never runs out of one that a quiet machine does not: Z3
under a resource limit (steps, not seconds), CrossHair under CPU seconds
(laws/registry.py, laws/proofs/crosshair.py, README "Reading make laws")."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
import z3

import laws.__main__ as laws_main
from laws.all import all_laws
from laws.bits import bits_agree as bits_law
from laws.proofs import crosshair, due, push_bounded
from laws.proofs.due import Form
from laws.proofs.result import Proof
from laws.registry import PROFILES, Broken, Held, Inconclusive, proved
from model import bits
from model import node as nodes

FEW = dataclasses.replace(PROFILES["ci"], line_examples=20, push_k=6, push_t=2_000)
"""The CI profile with the budgets under test and less else: push_agrees's
run on the model to t = 2,000, not 20,000 (1.6 CPU s a run), its proof to
k = 6."""


def slow_crosshair(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    """CrossHair on a machine so loaded that it passes its wall-clock safety net."""
    raise subprocess.TimeoutExpired(command, float(str(options["timeout"])))


def test_crosshair_past_its_safety_net_leaves_bits_agree_inconclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(crosshair.subprocess, "run", slow_crosshair)
    result, _ = laws_main.check_law("bits_agree", FEW)
    assert isinstance(result, Inconclusive), result
    assert result.law == "bits_agree"
    assert "safety net" in result.why and "no counterexample" in result.why
    assert "property over 20 cases per operation held" in result.why


def test_crosshair_stopped_by_its_cpu_limit_is_inconclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def killed(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(command, -24, "", "")  # SIGXCPU

    monkeypatch.setattr(crosshair.subprocess, "run", killed)
    with pytest.raises(Inconclusive, match="CPU seconds"):
        bits_law.bits_agree(FEW)


def test_a_whole_run_with_an_inconclusive_law_exits_0_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(crosshair.subprocess, "run", slow_crosshair)
    monkeypatch.setitem(laws_main.PROFILES, "ci", FEW)
    code = laws_main.main(["--only", "bits_agree", "--regressions", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "LAW BROKEN" not in out and "ALL" not in out
    row = next(line for line in out.splitlines() if line.startswith("bits_agree "))
    assert row.split()[1] == "INCONCLUSIVE"
    assert "\nINCONCLUSIVE: bits_agree\n" in out
    last = out.strip().splitlines()[-1]
    laws = len(all_laws())
    assert last.startswith(f"0 OF {laws} LAWS HOLD, 1 INCONCLUSIVE (bits_agree: "), last


def test_a_counterexample_from_crosshair_is_still_a_broken_law(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A real CrossHair run on a contract that is false: it is found within
    the budget and reported as broken."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        textwrap.dedent(
            '''
            def add_agrees(a: int, b: int) -> bool:
                """
                pre: 0 <= a < 2**20 and 0 <= b < 2**20
                post: __return__
                """
                return a + b != 1000
            '''
        )
    )
    monkeypatch.setattr(bits_law, "CONTRACTS", wrong)
    with pytest.raises(Broken, match="CrossHair:\n.*wrong.py:.*error"):
        bits_law.bits_agree(FEW)


# Z3: a resource limit, not a time-out.


def test_z3_out_of_its_resource_limit_is_undecided_not_refuted() -> None:
    t = z3.Int("T")
    a, b = due._free_pair("a"), due._free_pair("b")
    claim = due._order_obligations(Form.LAST, t, a, b)[0][1]
    outcome = due.refute(claim, [a.p >= 1, b.p >= 1], rlimit=1_000)
    assert (outcome.proved, outcome.model) == (False, None)
    assert "resource limit of 1,000 steps" in (outcome.reason or "")
    # The same query under the real limit is proved: the limit, not the claim, stopped it.
    assert due.refute(claim, [a.p >= 1, b.p >= 1]).proved


def test_push_agrees_out_of_its_resource_limit_is_inconclusive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(push_bounded, "CASE_RLIMIT", 1_000)
    proof = push_bounded.prove_push_bounded(k=6, processes=1)
    assert (proof.holds, proof.decided) == (False, False)
    result, _ = laws_main.check_law("push_agrees", FEW)
    assert isinstance(result, Inconclusive), result
    assert "could not decide within its resource limit" in result.why
    assert "no counterexample" in result.why


def test_a_refuted_proof_is_broken_even_beside_an_undecided_one() -> None:
    undecided = Proof("a", False, "not decided", 0.0, "ran out", decided=False)
    refuted = Proof("b", False, "refuted", 0.0, "T = 9")
    held = Proof("c", True, "proved universally", 0.0, None)

    def some_law() -> None:
        """Some law."""

    with pytest.raises(Broken, match="T = 9"):
        proved(some_law, undecided, refuted)
    with pytest.raises(Inconclusive, match="ran out"):
        proved(some_law, held, undecided)
    assert proved(some_law, held) == "proved universally [Z3 c, 0.0 s]"


def test_a_wrong_planner_is_still_refuted_under_the_resource_limit() -> None:
    proof = push_bounded.prove_push_bounded(k=6, processes=1, form=Form.T_FOR_T1)
    assert (proof.holds, proof.decided) == (False, True)
    assert proof.counterexample is not None and "t = 9" in proof.counterexample


def test_the_check_laws_hold_again_with_the_real_budgets() -> None:
    assert isinstance(laws_main.check_law("push_agrees", FEW)[0], Held)


def worker_dies(*_: object) -> None:
    os._exit(3)


def test_a_worker_process_that_dies_is_a_harness_error_not_a_hang(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(laws_main, "work", worker_dies)
    code = laws_main.main(["--only", "bits_agree", "--regressions", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 2
    assert "HARNESS ERROR" in out and "ended (exit 3) before the laws were all judged" in out


WRONG_BITS = {
    "compare": (bits, "compare", lambda a, b: 0),
    "add": (bits, "add", lambda a, b: a),
    "shift": (bits, "shift", lambda a, k: a),
    "parent": (nodes, "parent", lambda node: node),
}


@pytest.mark.parametrize("operation", sorted(WRONG_BITS))
def test_bits_agree_breaks_on_each_operation_wrong_alone(
    operation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bits_agree checks the four operations in one run of cases: each one
    wrong is still caught, and named, before CrossHair is asked."""
    module, name, wrong = WRONG_BITS[operation]
    monkeypatch.setattr(module, name, wrong)
    with pytest.raises(Broken) as broken:
        bits_law.bits_agree(dataclasses.replace(FEW, line_examples=300))
    assert f"{operation}_agrees(" in broken.value.counterexample
