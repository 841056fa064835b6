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
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            try:
                record = json.loads(raw)
            except ValueError:
                continue  # a torn line: the engine skips it too
            if isinstance(record, dict) and "torn" not in record:
                out.append(record)
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
