"""A planted bug for grouping failures into causes (issue 40), shaped like
a JavaScript engine's: a line is flattened for a render by turning each
`\\r\\n` and `\\n` into a space (`/\\r?\\n/g`), so a lone `\\r`, which SPEC 3
flattens too, stays in the text. It shows in the render, the contexts, the
timed-out render and zooms of a node's halves, wherever a text holds a
lone `\\r`. `plant()` puts it into the engine in this process (with `put`, a
test's monkeypatch.setattr)."""

import re
from collections.abc import Callable

from impl import render

BREAK = re.compile(r"\r?\n")


def flatten(text: str) -> str:
    """Line breaks as spaces, a line break being `\\n` with or without a `\\r` before it."""
    return BREAK.sub(" ", text)


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    put(render, "flatten", flatten)
