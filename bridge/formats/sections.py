"""Which SPEC section each answer field checks (bridge/PROTOCOL.md names the
fields): what a FAIL line and a report cite beside a divergence."""

from __future__ import annotations

from typing import Any

SECTIONS: dict[str, str] = {
    "refused": "SPEC 4.1",
    "started": "SPEC 4",
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
"""An answer field and the SPEC section that says what it must be."""


def section(field: str, expected: Any = None) -> str:
    """The SPEC section a divergence in `field` breaks; for `refused`, the
    rule of SPEC 4.1 the expected answer names (`rule 'jobs_bound' of SPEC 4.1`);
    `bridge/PROTOCOL.md` for a field no section covers."""
    cited = SECTIONS.get(field, "bridge/PROTOCOL.md")
    if field == "refused" and isinstance(expected, str):
        return f"rule {expected!r} of {cited}"
    return cited
