"""`python -m impl.protocol`: the engine behind the bridge's line protocol
(bridge/PROTOCOL.md), so that the bridge can drive it as a separate process
exactly as it drives engines written in other languages.

The protocol and the scenario format's sized texts are restated here from
their documents (bridge/PROTOCOL.md, scenarios/README.md): an engine brings
its own reading of them.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Planner
from impl.tree import Node

FILLER = "chat é€ 😀 line\r\nnext\rmore\nend. "
TURN_BYTES = len(FILLER.encode("utf-8"))


def sized_text(size: int, position: int) -> str:
    """`size` bytes of FILLER, repeated from character `position mod len`,
    whole characters only, padded with dots (scenarios/README.md): as many
    whole turns of FILLER as fit, then its characters one by one while they fit."""
    at = position % len(FILLER)
    turn = FILLER[at:] + FILLER[:at]
    turns, room = divmod(size, TURN_BYTES)
    chars = [turn * turns]
    for char in turn:
        width = len(char.encode("utf-8"))
        if width > room:
            break
        chars.append(char)
        room -= width
    return "".join(chars) + "." * room


def text_of(event: dict[str, Any], field: str, position: int) -> str:
    return event[field] if field in event else sized_text(event["size"], position)


def apply(planner: Planner, event: dict[str, Any], position: int) -> None:
    """Apply one scenario event to the planner; Refused when it breaks a rule."""
    node: Node = tuple(event.get("node", (0, 0)))  # type: ignore[assignment]
    name = event["event"]
    if name == "message":
        planner.message(event["kind"], text_of(event, "text", position))
    elif name == "start":
        planner.start(node)
    elif name == "end":
        planner.end(node, text_of(event, "line", position))
    elif name == "fail":
        planner.fail(node)
    elif name in ("wait", "settle", "timeout", "retry"):
        getattr(planner, name)()
    else:
        raise ValueError(f"unknown event {name!r}")


def observation(planner: Planner) -> dict[str, Any]:
    """The protocol's observation line after an event."""

    def pairs(nodes: tuple[Node, ...]) -> list[list[int]]:
        return [list(n) for n in nodes]

    return {
        "view": pairs(planner.view()),
        "size": planner.size(),
        "shrinking": planner.shrinking(),
        "merges": pairs(planner.merges()),
        "cview": pairs(planner.compaction_view()),
        "queue": pairs(planner.candidates()),
        "queue_waiting": pairs(planner.candidates_waiting()),
    }


def detail(planner: Planner) -> dict[str, Any]:
    """The protocol's answer to a detail request: the render and the contexts."""
    return {
        "render": planner.render(),
        "contexts": [[list(n), planner.render_context(n)] for n in planner.candidates()],
    }


def answer(planner: Planner, request: dict[str, Any], position: int) -> dict[str, Any]:
    """The answer to one line after the header: a detail request, or an event."""
    if request.get("detail") is True:
        return detail(planner)
    try:
        apply(planner, request, position)
    except Refused as refused:
        return {**observation(planner), "refused": refused.rule}
    return observation(planner)


def serve(source: TextIO, sink: TextIO) -> None:
    """Answer the header with ready, then each line with its answer."""
    header = json.loads(source.readline())
    planner = Planner(Constants(**header["constants"]))
    sink.write(json.dumps({"ready": True}) + "\n")
    sink.flush()
    position = 0
    for raw in source:
        request = json.loads(raw)
        sink.write(json.dumps(answer(planner, request, position), ensure_ascii=False) + "\n")
        sink.flush()
        position += "event" in request


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
