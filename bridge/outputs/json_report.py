"""A corpus run as JSON, for CI: each scenario's verdict, with the first
divergence's values and what was compared (bridge/checking/coverage.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bridge.checking.verdict import outcome
from bridge.runs.corpus import Run


def to_json(run: Run) -> dict[str, Any]:
    counts: dict[str, int] = {}
    cases = []
    for verdict in run.verdicts:
        seen = outcome(verdict, run.known)
        counts[seen] = counts.get(seen, 0) + 1
        cases.append(
            {
                "scenario": verdict.path.name,
                "path": str(verdict.path),
                "status": seen,
                "seconds": round(verdict.seconds, 3),
                "answers": verdict.answers,
                "reason": verdict.reason,
                "divergence": verdict.divergence,
                "notes": verdict.notes,
                "coverage": verdict.coverage.to_json() if verdict.coverage else None,
            }
        )
    return {
        "engine": run.engine,
        "agreement": run.agreement,
        "corpus_version": run.corpus_version,
        "seconds": round(run.seconds, 3),
        "counts": counts,
        "coverage": run.coverage().to_json(),
        "scenarios": cases,
    }


def write_json(run: Run, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(run), indent=2, ensure_ascii=False) + "\n", "utf-8")
