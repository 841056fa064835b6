"""A planted bug for grouping failures into causes (issue 40), shaped like
a JavaScript engine's: a line is flattened for a render by turning each of
JavaScript's line terminators into a space (`/\\r\\n|[\\r\\n\\u2028\\u2029]/g`),
so a LINE SEPARATOR (U+2028) or PARAGRAPH SEPARATOR (U+2029), which SPEC 3
keeps, shows as a space. It shows in the render, the contexts, the
timed-out render and zooms of a node's halves, wherever a text holds one;
the sizes are right. `plant()` puts it into the engine in this process
(with `put`, a test's monkeypatch.setattr)."""

import re
from collections.abc import Callable

from impl import render

TERMINATOR = re.compile("\r\n|[\r\n\u2028\u2029]")


def flatten(text: str) -> str:
    """Each line terminator of JavaScript's as a space, `\\r\\n` as one."""
    return TERMINATOR.sub(" ", text)


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    put(render, "flatten", flatten)
