"""A failing engine costs no more than a passing one (issue 24): `corpus`
starts it once per scenario, as a passing one, unless `--report` asks for
both whole states at the divergence (a second start and a model replay to
there), or its FAILs are grouped into causes with shrinking (here
`--shrink-tries 0`: each cause from the first divergence alone, and no
rule slip tried after the replay: `--shrink-seconds 0.001`). Any
scenario the engine fails shows this; zoom_2, among the smallest it fails
(703 events, diverging at the 121st), keeps the plain-Python engine and the
grouping into causes to a few CPU seconds (random_02 took twenty)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import bridge.cli as cli

ROOT = Path(__file__).resolve().parents[2]
FAILING = ROOT / "tests" / "bridge" / "engines" / "shrinking_dropped.py"


def counting_engine(folder: Path) -> tuple[str, Path]:
    """The failing engine behind a script that counts its starts in a file."""
    starts = folder / "starts"
    script = folder / "counted.py"
    script.write_text(
        "import runpy, sys\n"
        f"with open({str(starts)!r}, 'a') as f:\n"
        "    f.write('x')\n"
        f"sys.argv = [{str(FAILING)!r}]\n"
        f"runpy.run_path({str(FAILING)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}", starts


def test_a_failing_scenario_starts_the_engine_again_only_for_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    engine, starts = counting_engine(tmp_path)
    args = ["corpus", "--engine", engine, "--only", "zoom_2.jsonl", "--jobs", "1"]
    args += ["--shrink-tries", "0", "--shrink-seconds", "0.001"]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "FAIL zoom_2.jsonl" in out and "for the states there" in out, out
    assert starts.read_text() == "x"
    starts.unlink()
    assert cli.main([*args, "--report", str(tmp_path / "report")]) == 1
    assert starts.read_text() == "xx"
    pages = list((tmp_path / "report").glob("*zoom_2*.html"))
    assert len(pages) == 1 and "could not be had" not in pages[0].read_text(encoding="utf-8")
