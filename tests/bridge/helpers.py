"""Small legal scenarios for the bridge tests, made by driving the model."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from bridge.formats.capabilities import parse as capabilities_of
from bridge.formats.profile import parse, to_json
from bridge.wire import factory
from bridge.wire.engine import Engine, EngineFault, Ready
from bridge.wire.inprocess import ImplEngine
from impl import protocol as impl_protocol
from model import machine
from model.constants import Constants
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait
from scenarios.format import Scenario
from scenarios.strategies import constants_dict, event_dict

NEVER = "600"
"""A cap on shrinking's time (`--shrink-seconds`) no shrink here reaches on
any machine: shrinking stops when no pass changes the scenario or its
replays are spent, so what it keeps does not depend on speed or load."""

REPORT_SCHEMA = Path(__file__).parents[2] / "bridge" / "report.schema.json"
jsonschema.Draft202012Validator.check_schema(json.loads(REPORT_SCHEMA.read_text()))
REPORTS = jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text()))
"""`jsonschema` on bridge/report.schema.json, the schema checked once
(`jsonschema.validate` checks it again at every call, some 0.03 CPU s)."""

SMALL = Constants(node=64, ceiling=1500, floor=800, cceiling=600, cfloor=300, jobs=3, ahead=4)


def random_scenario(seed: int, count: int, constants: Constants = SMALL) -> Scenario:
    """`count` events, each legal for the model, drawn with `random.Random(seed)`."""
    rng = random.Random(seed)
    state = machine.initial(constants)
    events: list[Event] = []
    for _ in range(count):
        roll, candidates = rng.random(), machine.candidates(state)
        event: Event
        if roll < 0.3:
            event = Message(rng.choice(["user", "unii", "tool"]), "é\r\nx" * rng.randint(0, 40))
        elif roll < 0.6 and candidates:
            event = Start(rng.choice(candidates))
        elif roll < 0.9 and state.queue.running:
            node = rng.choice(state.queue.running)
            event = Fail(node) if rng.random() < 0.2 else End(node, "y" * rng.randint(1, 64))
        elif state.queue.waiting:
            event = Settle() if machine.settled(state) else Timeout()
        else:
            event = Wait() if roll < 0.95 else Retry()
        state = machine.step(state, event)
        events.append(event)
    return Scenario(constants_dict(constants), [event_dict(e) for e in events], "test", seed)


def in_plain_python(*ids: str) -> None:
    """Run the tests `ids` (pytest node ids) in one pytest process whose
    planner is plain Python (OPTCHAT_PURE=1): a bug planted by patching the
    engine's classes never reaches the C build, whose compiled code calls
    its own methods."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-o", "addopts=-q", "-p", "no:cacheprovider", *ids],
        env={**os.environ, "OPTCHAT_PURE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    # Every test ran and passed (a parametrized id runs more than once): none skipped.
    ran = re.search(r"^(\d+) passed in ", done.stdout, re.MULTILINE)
    whole = done.returncode == 0 and ran is not None and int(ran[1]) >= len(ids)
    assert whole and "skipped" not in done.stdout, done.stdout + done.stderr


class InProcessExample(ImplEngine):
    """An example engine of tests/bridge/engines/ that runs impl under a
    profile (`runs`), in this process: it answers the header as that program
    does (`declares` as its profile, `capabilities` as its capabilities,
    sessions taken, its name `said`) and leaves the fields `lacked` out of
    its answers, each answer first passed through `answered` (with the
    session), so that a replay costs no process and no JSON lines."""

    def __init__(
        self,
        spec: str,
        runs: dict[str, Any],
        said: str,
        declares: dict[str, Any] | None = None,
        capabilities: list[str] | None = None,
        lacked: Iterable[str] = (),
        answered: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(parse(runs, "runs"))
        self.name, self.said, self.lacked, self.answered = spec, said, tuple(lacked), answered
        # As a process engine's ready answer is read: no profile declared is SPEC's.
        self.declares = parse(declares or {}, "declares")
        self.capabilities = None if capabilities is None else capabilities_of(capabilities, "")
        self.protocol: ModuleType = impl_protocol

    def start(self, scenario: Scenario) -> Ready:
        self.answers.clear()
        profile = self.protocol.Profile.from_json(to_json(self.profile))
        session, answer = self.protocol.opened({"constants": scenario.constants}, profile)
        if session is None:
            return Ready(unsupported=answer["unsupported"])
        self.session = session
        return Ready(self.declares, sessions=True, engine=self.said, capabilities=self.capabilities)

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        if line.get("event") == "zoom" and "zoom" not in (self.capabilities or {"zoom"}):
            raise EngineFault(f"{self.said}: sent a zoom although it declares no zoom")
        out = super().answer(line)
        if self.answered is not None:
            out = self.answered(self.session, out)
        for name in self.lacked:
            out.pop(name, None)
        return out


def in_process(monkeypatch: pytest.MonkeyPatch, example: Callable[[str], Engine | None]) -> None:
    """Engines made from a spec are `example(spec)` where it makes one (the
    runner in this process: one job; a pool's workers start the programs)."""
    made = factory.engine

    def engine(spec: str, *args: Any, **named: Any) -> Engine:
        return example(spec) or made(spec, *args, **named)

    monkeypatch.setattr(factory, "engine", engine)


ENGINES = Path(__file__).parent / "engines"


def of_the_copy(name: str, module: object) -> bool:
    """Whether a loaded module is one `planted` loads afresh: impl's, or an example engine's."""
    where = getattr(module, "__file__", None)
    return name.split(".")[0] == "impl" or (where is not None and Path(where).parent == ENGINES)


@cache
def planted(engine: str, *names: str) -> ModuleType:
    """`impl.protocol` of a plain-Python copy of the engine loaded beside the
    one this process runs (the C build, or plain Python), with the bug of
    tests/bridge/engines/`engine`.py planted (its `plant()`, or for
    planted.py those it `names`): the copy's modules, and the engine modules
    bound to them, are loaded afresh, then the process's own put back, so
    the patch reaches the copy alone. One copy for each planted engine,
    planted once."""
    own = {name: m for name, m in sys.modules.items() if of_the_copy(name, m)}
    path, pure = list(sys.path), os.environ.get("OPTCHAT_PURE")
    for name in own:
        del sys.modules[name]
    os.environ["OPTCHAT_PURE"] = "1"
    try:
        protocol = importlib.import_module("impl.protocol")
        assert not sys.modules["impl"].COMPILED
        spec = importlib.util.spec_from_file_location(f"planted_{engine}", ENGINES / f"{engine}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for plant in [module.PLANTS[name] for name in names] or [module.plant]:
            plant()
    finally:
        for name, loaded in list(sys.modules.items()):
            if of_the_copy(name, loaded):
                del sys.modules[name]
        sys.modules.update(own)
        sys.path[:] = path
        if pure is None:
            del os.environ["OPTCHAT_PURE"]
        else:
            os.environ["OPTCHAT_PURE"] = pure
    return protocol


def with_bug(spec: str, engine: str, *names: str) -> InProcessExample:
    """tests/bridge/engines/`engine`.py, `python -m impl.protocol` with the
    bugs it plants (those it `names`), in this process (`planted`), made
    for `--engine spec`."""
    made = InProcessExample(spec, {}, "optchat-spec impl")
    made.protocol = planted(engine, *names)
    return made


def bug_in_process(monkeypatch: pytest.MonkeyPatch, spec: str, engine: str) -> None:
    """`--engine spec` is tests/bridge/engines/`engine`.py in this process (`with_bug`)."""
    in_process(monkeypatch, lambda given: with_bug(given, engine) if given == spec else None)
