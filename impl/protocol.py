"""`python -m impl.protocol [--profile FILE]`: the engine
behind the bridge's line protocol (bridge/PROTOCOL.md), so that the bridge
drives it as a separate process exactly as it drives engines written in
other languages.

The protocol and the scenario format's sized texts are restated here from
their documents (bridge/PROTOCOL.md, scenarios/README.md): an engine brings
its own reading of them. It speaks protocol 2 (lean answers, positions in
the events, sessions), and runs with the engine
profile of `--profile` (SPEC 10), which it declares in its answer to the
header; under `calls: self` it starts its own calls after every event.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from impl.constants import Constants
from impl.errors import Refused
from impl.planner import Observation, Planner
from impl.profile import Profile
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
    """The event's text in `field`, or the sized text its `size` stands for."""
    return event[field] if field in event else sized_text(event["size"], position)


def replies_of(event: dict[str, Any], position: int) -> list[str]:
    """An end's replies: reply k is its `text`, or `sized_text(size, position + k)`."""
    return [text_of(reply, "text", position + k) for k, reply in enumerate(event["replies"])]


def pairs(nodes: tuple[Node, ...] | list[Node]) -> list[list[int]]:
    return [list(n) for n in nodes]


def crc(text: str) -> int:
    """The CRC-32 of a text's UTF-8 bytes, as bridge/PROTOCOL.md asks for
    renders and contexts after a batch."""
    return zlib.crc32(text.encode("utf-8"))


class Session:
    """One chat replayed through the protocol: a planner with the header's
    constants and this engine's profile."""

    def __init__(self, header: dict[str, Any], profile: Profile) -> None:
        self.planner = Planner(Constants(**header["constants"]), profile)
        self.profile = profile
        self.position = 0
        self.started: list[Node] = []

    def apply(self, event: dict[str, Any], at: int) -> dict[str, Any]:
        """Apply one event; the answer fields only it makes (`line`, `zoom`,
        `render_timed_out_crc`). Refused when it breaks a rule."""
        planner = self.planner
        name = event["event"]
        node: Node = tuple(event.get("node", (0, 0)))  # type: ignore[assignment]
        if name == "message":
            planner.message(event["kind"], text_of(event, "text", at))
        elif name == "start":
            if self.profile.self_calls:
                planner.forget_batch()
                raise Refused("self_starts", "under calls: self this engine starts its own calls")
            planner.start(node)
        elif name in ("end", "fail"):
            if name == "fail":
                outcome = planner.fail(node)
            elif "replies" in event:
                outcome = planner.end_replies(node, replies_of(event, at))
            else:
                outcome = planner.end(node, text_of(event, "line", at))
            if outcome.built and outcome.built[0] == node:
                return {"line": planner.text(node)}
        elif name == "timeout":
            planner.timeout()
            return {"render_timed_out_crc": crc(planner.render_timed_out())}
        elif name == "zoom":
            return {"zoom": planner.zoom(event["id"], event["n"])}
        elif name in ("wait", "settle", "retry"):
            getattr(planner, name)()
        else:
            raise ValueError(f"unknown event {name!r}")
        return {}

    def brief(self, observed: Observation) -> dict[str, Any]:
        """What every answer to an event holds (protocol 2), from the
        planner's observation after it."""
        _, size, shrinking, merges, _, cmerges, candidates, waiting = observed
        view_digest, cview_digest = self.planner.digests()
        return {
            "size": size,
            "shrinking": shrinking,
            "merges": pairs(merges),
            "cmerges": pairs(cmerges),
            "view_digest": view_digest,
            "cview_digest": cview_digest,
            "queue": pairs(candidates),
            "queue_waiting": pairs(waiting),
        }

    def shown(self) -> list[Node]:
        """The nodes whose contexts are shown: the queue's, then the calls the
        last event started."""
        return [*self.planner.candidates(), *self.started]

    def batch(self, observed: Observation) -> dict[str, Any]:
        """After a batch that merged: the whole views, the render's and each
        context's CRC (protocol 2)."""
        p = self.planner
        return {
            "view": pairs(observed[0]),
            "cview": pairs(observed[4]),
            "render_crc": crc(p.render()),
            "contexts_crc": [[list(n), crc(p.render_context(n))] for n in self.shown()],
        }

    def detail(self) -> dict[str, Any]:
        """The answer to a detail request: the whole state, texts in full."""
        p = self.planner
        contexts = [[list(n), p.render_context(n)] for n in self.shown()]
        return {
            "view": pairs(p.view()),
            "cview": pairs(p.compaction_view()),
            "render": p.render(),
            "render_timed_out": p.render_timed_out(),
            "contexts": contexts,
        }

    def event(self, event: dict[str, Any]) -> dict[str, Any]:
        """The answer to one event."""
        at = event.get("at", self.position)
        self.position += 1
        self.started = []
        try:
            extra = self.apply(event, at)
        except Refused as refused:
            extra = {"refused": refused.rule}
        else:
            if self.profile.self_calls:
                self.started = self.planner.start_all()
        observed = self.planner.observe()
        answer = self.brief(observed)
        if self.started:
            answer["started"] = pairs(self.started)
        answer.update(extra)
        if answer["merges"]:
            answer.update(self.batch(observed))
        return answer

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one line after the header: a detail request, or an event."""
        if request.get("detail") is True and "event" not in request:
            return self.detail()
        return self.event(request)


def compact(answer: dict[str, Any]) -> bytes:
    """An answer as one line of compact JSON, the form transcripts keep, so
    that the bridge can compare it without reading it (bridge/wire/stream.py)."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def ready(profile: Profile) -> dict[str, Any]:
    """The answer to a header: ready, with the profile this engine runs with."""
    return {
        "ready": True,
        "protocol": 2,
        "engine": "optchat-spec impl",
        "profile": profile.to_json(),
        "sessions": True,
    }


def opened(header: dict[str, Any], profile: Profile) -> tuple[Session | None, dict[str, Any]]:
    """A chat for a scenario's header and the answer to it: ready, or not
    ready (no chat) for constants this engine cannot take beyond what SPEC 7
    refuses (a tool cap with no room for its clip marker)."""
    try:
        return Session(header, profile), ready(profile)
    except ValueError as error:
        return None, {"ready": False, "unsupported": {"constants": str(error)}}


def lines(source: BinaryIO) -> Iterator[list[bytes]]:
    """The complete lines the input holds each time it is read: the bridge
    writes ahead, so answers are flushed once per read, not once per line."""
    pending = b""
    fd = source.fileno()
    while chunk := os.read(fd, 1 << 16):
        *done, pending = (pending + chunk).split(b"\n")
        if done:
            yield done


def serve(source: BinaryIO, sink: BinaryIO, profile: Profile) -> None:
    """Answer each header with ready and each later line with its answer; a
    new header (protocol 2 sessions) starts a new chat."""
    session: Session | None = None
    for batch in lines(source):
        out: list[bytes] = []
        for raw in batch:
            request = json.loads(raw)
            if "format" in request:
                session, answer = opened(request, profile)
            elif session is None:
                raise SystemExit("impl.protocol: the first line must be a ready scenario header")
            else:
                answer = session.answer(request)
            out.append(compact(answer) + b"\n")
        sink.write(b"".join(out))
        sink.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m impl.protocol", description=__doc__)
    parser.add_argument("--profile", type=Path, help="a JSON file of SPEC 10 options")
    args = parser.parse_args(argv)
    profile = Profile()
    if args.profile is not None:
        try:
            profile = Profile.from_json(json.loads(args.profile.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            parser.error(f"{args.profile}: {error}")
    serve(sys.stdin.buffer, sys.stdout.buffer, profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
