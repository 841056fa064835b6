"""A planted bug for grouping failures into causes (issue 40): when a line
is flattened for a render, each of `\\r` and `\\n` becomes a space, so a
`\\r\\n` shows as two spaces where SPEC 3 shows one. It shows in the
render, the contexts, the timed-out render and zooms of a node's halves.
`plant()` puts it into the engine in this process
(with `put`, a test's monkeypatch.setattr)."""

from collections.abc import Callable

from impl import render


def flatten(text: str) -> str:
    """Line breaks as spaces, one character at a time."""
    return text.replace("\r", " ").replace("\n", " ")


def plant(put: Callable[[object, str, object], None] = setattr) -> None:
    put(render, "flatten", flatten)
