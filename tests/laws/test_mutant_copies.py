"""The mutants' scratch copies, each lent to one break after another: put back
after each as a fresh copy of the project would be."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from laws import mutants


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` but bytecode, by its path there, with its bytes."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            if path.parent.name != "__pycache__":
                out[str(path.relative_to(root))] = path.read_bytes()
    return out


def test_a_lent_copy_is_put_back_as_made_after_a_break_and_what_its_gate_wrote(
    tmp_path: Path,
) -> None:
    copies = mutants.Copies(tmp_path / "copies")
    shift = next(b for b in mutants.BREAKS if b.name == "due without the shift (T for T + 1)")
    due = "model/due.py"
    with copies.lent() as copy:
        mutants.apply(copy, shift)
        broken = (copy / due).read_text()
        # What a gate writes: the broken module compiled, a counterexample,
        # a folder of its own; and a project file it removed.
        compiled = Path(importlib.util.cache_from_source(str(copy / due)))
        compiled.parent.mkdir(exist_ok=True)
        compiled.write_bytes(b"compiled from the broken module")
        (copy / "optchat-regressions" / "laws").mkdir(parents=True)
        (copy / "optchat-regressions" / "laws" / "law_x.jsonl").write_text("{}\n")
        (copy / "model" / "stray.txt").write_text("written by a gate")
        (copy / "model" / "view.py").unlink()
    assert broken != (mutants.ROOT / due).read_text(), "the break was not planted"
    fresh = mutants.scratch_copy(tmp_path / "fresh")
    assert files(copy) == files(fresh)
    assert compiled.read_bytes() != b"compiled from the broken module"  # gone or the project's
    # The project itself is as it was, and the next break gets the same copy.
    assert (mutants.ROOT / due).read_text() != broken
    with copies.lent() as again:
        assert again == copy
