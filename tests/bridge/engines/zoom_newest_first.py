"""`python -m impl.protocol` with a difference from SPEC that no profile
option declares (SPEC 10 has none for it), as real engines have one: a
zoom on a node (n >= 2) gives its two halves newest first, where SPEC 3.5
renders them as the view does, oldest first. `plant()` is what planted.py
takes from here."""

import sys

from impl import protocol


def newest_first(request: dict, answer: dict) -> dict:
    """The engine's answer to `request`, its zoom on a node newest first."""
    if request.get("event") == "zoom" and request.get("n", 1) >= 2 and "zoom" in answer:
        answer["zoom"] = "\n".join(reversed(answer["zoom"].split("\n")))
    return answer


def plant() -> None:
    """Put the difference into the engine in this process."""
    answer = protocol.Session.answer

    def answered(self: protocol.Session, request: dict) -> dict:
        return newest_first(request, answer(self, request))

    protocol.Session.answer = answered  # type: ignore[method-assign]


if __name__ == "__main__":
    plant()
    sys.exit(protocol.main(sys.argv[1:]))
