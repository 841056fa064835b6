"""The one place an engine is made from its spec: `reference`, `model` or
`impl`, an example engine (`example:NAME`, bridge/wire/examples.py), or the
command line of a program speaking the protocol."""

from __future__ import annotations

import os
import shlex
import sys

from bridge.formats.invocation import PACKAGES
from bridge.formats.profile import SPEC
from bridge.wire.engine import Engine
from bridge.wire.examples import PREFIX, example
from bridge.wire.inprocess import ImplEngine, ModelEngine
from bridge.wire.process import ProcessEngine
from model.profile import Profile

NAMES = ("reference", "model", "impl")
"""The engines the runner knows by name; anything else is a protocol command."""


def reference(timeout: float = 10.0) -> ProcessEngine:
    """`impl.protocol`, the reference engine, as a protocol process: the
    runner's own interpreter with the runner's own packages first on its path,
    wherever the runner is (a clone, a virtual environment, the zipapp's folder)."""
    subject = ProcessEngine(shlex.join([sys.executable, "-m", "impl.protocol"]), timeout)
    subject.name = "reference"
    subject.env = {**os.environ, "PYTHONPATH": str(PACKAGES)}
    return subject


def engine(spec: str, timeout: float = 10.0, profile: Profile = SPEC) -> Engine:
    """`reference` (impl.protocol through the protocol), `model` or `impl`
    (both in process, run with `profile`), an example engine, or a command
    line speaking the protocol (which declares its own)."""
    if spec == "reference":
        return reference(timeout)
    if spec == "model":
        return ModelEngine(profile)
    if spec == "impl":
        return ImplEngine(profile)
    if spec.startswith(PREFIX):
        return example(spec, timeout)
    return ProcessEngine(spec, timeout)
