"""A corpus run as JSON, for CI: what ran (runner, corpus, engine, profile),
each scenario's verdict, with the first divergence's values and SPEC
section, the causes its FAILs are of (bridge/checking/causes.py), and the
run's verdict as its exit code and last line (with the floor it was held
to, which `merge-reports` holds the shards' sum to). The
form is bridge/report.schema.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge import __version__
from bridge.checking.verdict import outcome
from bridge.formats.kit import shown
from bridge.outputs.writing import write_whole
from bridge.runs.corpus import Run

FORMAT = "optchat-spec-report/1"


def to_json(run: Run) -> dict[str, Any]:
    """The run as the JSON report holds it (bridge/report.schema.json)."""
    counts: dict[str, int] = {}
    cases = []
    for verdict in run.verdicts:
        seen = outcome(verdict, run.known)
        counts[seen] = counts.get(seen, 0) + 1
        cases.append(
            {
                "scenario": verdict.path.name,
                "path": shown(verdict.path),
                "family": verdict.family,
                "status": seen,
                "seconds": round(verdict.seconds, 3),
                "answers": verdict.answers,
                "reason": verdict.reason,
                "divergence": verdict.divergence,
                "after_adoption": verdict.after,
                "notes": verdict.notes,
                "coverage": verdict.coverage.to_json() if verdict.coverage else None,
                "page": verdict.page,
                "cause": run.cause_of(verdict),
            }
        )
    return {
        "format": FORMAT,
        "runner_version": __version__,
        "corpus_version": run.corpus_version,
        "engine": run.engine,
        "engine_name": next((v.engine for v in run.verdicts if v.engine), None),
        "profile": next((v.profile for v in run.verdicts if v.profile is not None), None),
        "agreement": run.agreement,
        "started": run.started,
        "seconds": round(run.seconds, 3),
        "counts": counts,
        "coverage": run.coverage().to_json(),
        "causes": [cause.to_json() for cause in run.causes],
        "beyond": [past.to_json() for past in run.beyond()],
        "min_compared": run.floor,
        "shard": run.shard,
        "verdict": {"exit_code": run.tally().code(), "summary": run.summary()},
        "scenarios": cases,
    }


def write_json(run: Run, path: Path) -> None:
    """Write the report whole; text no UTF-8 holds (a lone surrogate an
    engine answered) is kept as its `\\u` escape."""
    write_whole(path, json.dumps(to_json(run), indent=2, ensure_ascii=True) + "\n")
