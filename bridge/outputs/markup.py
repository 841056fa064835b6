"""Untrusted text made safe for where a report puts it: HTML text and
attributes, JSON inside a page's `<script>` element, and XML 1.0. Scenario
files, profiles and engine answers are untrusted (README, "Reports for CI"): a
value reaches a page or a CI report only through one of these."""

from __future__ import annotations

import html
import json
import re
from typing import Any

UNSHOWABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)
"""Characters XML 1.0 forbids (C0 controls but tab and newlines, lone
surrogates, U+FFFE, U+FFFF), DEL, and the bidirectional embeddings,
overrides and isolates (an engine's U+202E would reverse the rest of the
cell or line it is in): shown as Python writes them escaped."""

BIDI_IN_JSON = re.compile(r"(?<!\\)((?:\\\\)*)\\u(202[a-e]|206[6-9])")
"""A bidirectional embedding, override or isolate as `json.dumps` escapes
it (`\\u202e`, after an even number of backslashes: not a backslash quoted)."""


def visible(text: str) -> str:
    """`text` with every character no report can hold written as its escape
    (`\\x01`, `\\ud800`), so the report says what was there."""
    return UNSHOWABLE.sub(lambda found: repr(found.group())[1:-1], text)


def escape(value: Any) -> str:
    """A value as HTML text or a quoted attribute value."""
    return html.escape(visible(str(value)), quote=True)


SCRIPT_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def script_json(data: Any) -> str:
    """Data as JSON that a `<script>` element holds as it is: ASCII only (so
    U+2028, U+2029 and lone surrogates are `\\u` escapes), and no `<`, `>` or
    `&`, so neither `</script>` nor `<!--` can end or change the element. A
    bidirectional override or isolate reaches the page as the six characters
    of its escape, as `visible` writes it, never as itself."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    text = BIDI_IN_JSON.sub(r"\1\\\\u\2", text)
    return re.sub("[<>&]", lambda found: SCRIPT_SAFE[found.group()], text)
