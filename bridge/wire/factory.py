"""The one place an engine is made from its spec: the word `model` or
`impl`, or the command line of a program speaking the protocol."""

from __future__ import annotations

from bridge.formats.profile import SPEC
from bridge.wire.engine import Engine
from bridge.wire.inprocess import ImplEngine, ModelEngine
from bridge.wire.process import ProcessEngine
from model.profile import Profile


def engine(spec: str, timeout: float = 10.0, profile: Profile = SPEC) -> Engine:
    """`model`, `impl` (both run with `profile`), or a command line speaking
    the protocol (which declares its own)."""
    if spec == "model":
        return ModelEngine(profile)
    if spec == "impl":
        return ImplEngine(profile)
    return ProcessEngine(spec, timeout)
