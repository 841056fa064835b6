"""The engines that run in the bridge's own process: the model (the oracle)
and the engine in `impl/` through its protocol adapter, each answering a
line as it is sent."""

from __future__ import annotations

from typing import Any

from bridge.formats.profile import SPEC, to_json
from bridge.wire import observe
from bridge.wire.engine import InProcess, Ready
from impl.profile import Profile as ImplProfile
from impl.protocol import opened
from model import bits, machine
from model.constants import Constants as ModelConstants
from model.errors import Refused as ModelRefused
from model.events import End, Event, Fail, Message, Retry, Settle, Start, Timeout, Wait, Zoom
from model.node import Node
from model.profile import Profile
from scenarios.format import Scenario, text_of


def model_event(event: dict[str, Any], position: int) -> Event:
    """A scenario event as a model event; texts given by size are made at
    the event's position (scenarios/README.md)."""
    name = event["event"]
    node = Node(event["node"][0], bits.from_int(event["node"][1])) if "node" in event else None
    match name:
        case "message":
            return Message(event["kind"], text_of(event, "text", position))
        case "start":
            return Start(node)  # type: ignore[arg-type]
        case "end" if "replies" in event:
            replies = tuple(
                text_of(reply, "text", position + k) for k, reply in enumerate(event["replies"])
            )
            return End(node, replies=replies)  # type: ignore[arg-type]
        case "end":
            return End(node, text_of(event, "line", position))  # type: ignore[arg-type]
        case "fail":
            return Fail(node)  # type: ignore[arg-type]
        case "zoom":
            return Zoom(bits.from_int(event["id"]), bits.from_int(event["n"]))
    return {"wait": Wait(), "settle": Settle(), "timeout": Timeout(), "retry": Retry()}[name]


class ModelEngine(InProcess):
    """The oracle: `model.machine` under a profile, one immutable state per
    event. `refusal` keeps the last refusal's full text, for reports. With
    `refusals_only`, an answer says only whether the event was refused, and
    by which rule (observe.Refusals)."""

    name = "model"

    def __init__(self, profile: Profile = SPEC, refusals_only: bool = False) -> None:
        super().__init__()
        self.profile = profile
        self.refusals_only = refusals_only

    def start(self, scenario: Scenario) -> Ready:
        self.answers.clear()
        self.state = machine.initial(ModelConstants(**scenario.constants), self.profile)
        self.observer = observe.Refusals() if self.refusals_only else observe.ModelAnswers()
        self.refusal = ""
        return Ready(profile=self.profile, sessions=True, engine="optchat-spec model")

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        if "event" not in line:
            return self.observer.detail(self.state)
        event = model_event(line, line["at"])
        before = self.state
        try:
            self.state = machine.step(before, event)
        except ModelRefused as refused:
            self.refusal = str(refused)
            self.state = machine.refuse(before)
            return self.observer.refused(self.state, refused.rule)
        return self.observer.accepted(before, event, self.state)


class ImplEngine(InProcess):
    """The production planner of `impl/`, in this process, read and answered
    by the engine's own protocol adapter (`impl.protocol.Session`) without
    the process and the JSON lines; it runs with `profile`."""

    name = "impl"

    def __init__(self, profile: Profile = SPEC) -> None:
        super().__init__()
        self.profile = profile
        self.impl_profile = ImplProfile.from_json(to_json(profile))

    def start(self, scenario: Scenario) -> Ready:
        self.answers.clear()
        session, answer = opened({"constants": scenario.constants}, self.impl_profile)
        if session is None:
            return Ready(unsupported=answer["unsupported"])
        self.session = session
        return Ready(profile=self.profile, sessions=True, engine="optchat-spec impl")

    def answer(self, line: dict[str, Any]) -> dict[str, Any]:
        return self.session.answer(line)
