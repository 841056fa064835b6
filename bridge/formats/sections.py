"""Which SPEC section each answer field checks (bridge/PROTOCOL.md names the
fields): what a FAIL line and a report cite beside a divergence."""

from __future__ import annotations

import json
from typing import Any

SECTIONS: dict[str, str] = {
    "refused": "SPEC 4.1",
    "started": "SPEC 10",
    "line": "SPEC 5",
    "zoom": "SPEC 3.5",
    "size": "SPEC 3",
    "shrinking": "SPEC 3.3",
    "merges": "SPEC 3.3",
    "cmerges": "SPEC 3.4",
    "view_digest": "SPEC 3",
    "cview_digest": "SPEC 3.4",
    "queue": "SPEC 4",
    "queue_waiting": "SPEC 4",
    "view": "SPEC 3",
    "cview": "SPEC 3.4",
    "render": "SPEC 3",
    "render_crc": "SPEC 3",
    "render_timed_out": "SPEC 4",
    "render_timed_out_crc": "SPEC 4",
    "contexts": "SPEC 3.4",
    "contexts_crc": "SPEC 3.4",
}
"""An answer field and the SPEC section that says what it must be
(bridge/PROTOCOL.md, "Answers to events"; `started` is what an engine under
`calls: self` reports, SPEC 10)."""


def section(field: str) -> str | None:
    """The SPEC section of an answer field; None for a field SPEC does not
    define (an engine's stray field)."""
    return SECTIONS.get(field)


def cited(field: str, rule: Any = None) -> str:
    """The section as a FAIL line cites it: for `refused`, the rule of SPEC
    4.1 one side names, as JSON (`rule "jobs_bound" of SPEC 4.1`)."""
    at = section(field)
    if at is None:
        return "a field bridge/PROTOCOL.md does not define"
    if field == "refused" and isinstance(rule, str):
        return f"rule {json.dumps(rule)} of {at}"
    return at
