"""The reference model run over a chat directory's logged history, for
comparing the engine's restarted state with it (SPEC 6)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from model import bits, machine
from model import events as ev
from model import queue as queues
from model.constants import Constants as ModelConstants
from model.node import Node as ModelNode


def records(folder: Path) -> list[dict]:
    """The records the engine reads: torn lines (not JSON, unterminated, or
    named by a `{"torn": n}` marker) and the markers left out."""
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        rows = path.read_bytes().split(b"\n")[:-1]  # an unterminated last line is torn
        parsed: list[dict | None] = []
        for raw in rows:
            try:
                record = json.loads(raw)
            except ValueError:
                record = None
            parsed.append(record if isinstance(record, dict) else None)
        torn = {r["torn"] for r in parsed if r is not None and "torn" in r}
        out += [
            r
            for number, r in enumerate(parsed, start=1)
            if r is not None and "torn" not in r and number not in torn
        ]
    return out


def model_state(path: Path, constants: dict) -> machine.State:
    """Messages and built nodes replayed into the model in logged order; the
    model computes every batch itself."""
    messages = records(path / "main")
    state = machine.initial(ModelConstants(**constants))

    def admit_upto(t: int) -> None:
        nonlocal state
        while bits.to_int(state.count) < t:
            m = messages[bits.to_int(state.count)]
            state = machine.step(state, ev.Message(m["kind"], m["text"]))

    for record in records(path / "tree"):
        admit_upto(record["t"])
        if "l" in record:
            node = ModelNode(record["l"], bits.from_int(record["i"]))
            if machine.text(state, node) is None:
                state = replace(state, queue=queues.start(state.queue, node))
                state = machine.step(state, ev.End(node, record["text"]))
    admit_upto(len(messages))
    return state


def as_pairs(view: tuple[ModelNode, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((n.level, bits.to_int(n.index)) for n in view)
