"""One cause per bug (issue 40): an engine with three planted bugs, each
seen in several ways, gives three causes, each named by the rule slip of
the model that explains it and shrunk to its bug alone. The bugs: a free
leaf that waits for a call (free_leaf_queued.py; it shows in the views
and the queue at messages, and is not the option `free_leaves: queued`,
under which a queued free leaf is built with no call), ready merges
offered before unbuilt leaves (merges_first.py; the queue at messages and
ends) and a lone `\\r` left unflattened (lone_cr.py; timed-out renders).
The engine runs in this process (`impl`, patched), on a few small
scenarios where each bug shows first; which bug each scenario shows is
read from the engine with that bug alone, apart from the grouping."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import impl
from bridge import cli
from bridge.runs.corpus import Options, check
from tests.bridge.helpers import NEVER, in_plain_python

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bridge" / "engines"))

import free_leaf_queued  # noqa: E402
import lone_cr  # noqa: E402
import merges_first  # noqa: E402

Plant = Callable[[Callable[[object, str, object], None]], None]

BUGS: dict[str, tuple[Plant, tuple[str, str], dict[str, str]]] = {
    "queued_leaf": (
        free_leaf_queued.plant,
        ("model/machine.py", "_message"),
        {
            "chooser_0": "size@message",
            "both_need_first_merge_needs_halves": "queue@message",
            "refused_settle_needs_summaries_2": "queue@message",
        },
    ),
    "merges_first": (
        merges_first.plant,
        ("model/queue.py", "candidates"),
        {"random_01": "queue@message", "refused_one_wait_0": "queue@end"},
    ),
    "lone_cr": (
        lone_cr.plant,
        ("model/text.py", "flatten"),
        {
            "random_10": "render_timed_out_crc@timeout",
            "refused_settle_needs_summaries_1": "render_timed_out_crc@timeout",
        },
    ),
}
"""Each bug: how to plant it, the model's function its slip changes, and
the scenarios where it shows first beside the others, each with the field
and kind of event where its first divergence is."""


def first_divergence(name: str) -> str | None:
    """`FIELD@KIND` of a corpus scenario's first divergence on the engine as it is now."""
    verdict = check(ROOT / "scenarios" / "corpus" / f"{name}.jsonl", Options(engine="impl"))
    if verdict.divergence is None:
        return None
    return f"{verdict.divergence['field']}@{(verdict.divergence['event'] or {})['event']}"


@pytest.mark.skipif(impl.COMPILED, reason="a patch misses the C build: see the test below")
def test_three_bugs_each_seen_in_several_ways_are_three_named_causes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Which bug each scenario shows, from the engine with that bug alone.
    for plant, _, shows in BUGS.values():
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            assert {name: first_divergence(name) for name in shows} == shows
    names = [name for _, _, shows in BUGS.values() for name in shows]
    report, found = tmp_path / "r.json", tmp_path / "found"
    args = ["corpus", "--jobs", "1", "--engine", "impl", "--shrink-seconds", NEVER]
    args += [arg for name in names for arg in ("--only", name)]
    with monkeypatch.context() as patched:
        for plant, _, _ in BUGS.values():
            plant(patched.setattr)
        code = cli.main([*args, "--regressions", str(found), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 1, out
    n = len(names)
    assert f"verdict before shrinking: {n} scenarios: {n} FAIL from 3 causes" in out, out
    assert out.splitlines()[-1].startswith(f"{n} scenarios: {n} FAIL from 3 causes"), out
    causes = json.loads(report.read_text())["causes"]
    by_site = {(c["slip"]["file"], c["slip"]["function"]): c for c in causes if c["slip"]}
    assert len(by_site) == 3, out
    for bug, (_, site, shows) in BUGS.items():
        cause = by_site[site]
        assert sorted(Path(p).stem for p in cause["scenarios"]) == sorted(shows), bug
        assert f"your engine agrees with SPEC on all {len(shows)} of these if in `{site[1]}`" in out
    # The free leaf's slip is the condition that builds it at its message.
    assert by_site["model/machine.py", "_message"]["slip"]["before"] == (
        "state.profile.free_leaves == 'at_once'"
    )
    # Each shrunk scenario shows its bug alone: the engine with that bug
    # alone diverges on it, and with either other bug alone agrees.
    for bug, (plant, site, _) in BUGS.items():
        with monkeypatch.context() as patched:
            plant(patched.setattr)
            code = cli.main(["corpus", "--jobs", "1", "--engine", "impl", "--shrink-tries", "0",
                             str(found / "scenarios")])  # fmt: skip
        said = capsys.readouterr().out
        assert code == 1, said
        assert re.findall(r"FAIL (\S+)\.jsonl", said) == [Path(by_site[site]["shrunk"]).stem], bug


@pytest.mark.skipif(not impl.COMPILED, reason="the test above runs in this process")
def test_three_named_causes_in_plain_python() -> None:
    in_plain_python(f"{__file__}::test_three_bugs_each_seen_in_several_ways_are_three_named_causes")
